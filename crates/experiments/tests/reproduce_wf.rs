//! Wang and Fahmy's experiments in `convoy reproduce`: every run of every registered experiment loads with its
//! `--set` overrides, and the switch-inflation experiment (100 s of the congested chain) runs, shows the old
//! acker's ACKs arriving after a switch, reports its variants and draws its Fig. 11.

use convoy_experiments::reproduce::{registry, reproduce, ReproduceOptions};
use std::path::PathBuf;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

#[test]
fn every_run_plan_loads_with_its_overrides() {
    for exp in registry::all() {
        for plan in exp.runs {
            let sets: Vec<String> = plan.sets.iter().map(|s| s.to_string()).collect();
            convoy_experiments::scenario::load(
                &root().join("scenarios").join(plan.scenario),
                &sets,
            )
            .unwrap_or_else(|e| panic!("{} [{}]: {e}", exp.id, plan.variant));
        }
    }
}

#[test]
fn switch_inflation_runs_and_draws_fig11() {
    let out = std::env::temp_dir().join(format!("convoy-reproduce-wf-{}", std::process::id()));
    let opts = ReproduceOptions {
        ids: vec!["wf-switch-inflation".into()],
        out: out.clone(),
        seeds: 1,
        jobs: 2,
        scenarios: root().join("scenarios"),
    };
    let verdicts = reproduce(&opts, &mut |_| {}).expect("the experiment runs");
    let v = verdicts
        .iter()
        .find(|v| v.id == "wf-switch-inflation")
        .unwrap();
    let old = v
        .checks
        .iter()
        .find(|c| c.what.starts_with("ACKs from the old acker"))
        .unwrap();
    assert!(
        old.pass && old.measured.contains("old-acker ACKs"),
        "{old:?}"
    );
    let adaptive = v
        .checks
        .iter()
        .find(|c| c.what.starts_with("variant with Convoy's adaptive timeout"))
        .expect("the adaptive variant is reported");
    assert!(adaptive.measured.contains("old-acker ACKs"), "{adaptive:?}");
    for f in [
        "wf-switch-inflation/fig11.svg",
        "wf-switch-inflation/window-pgm.svg",
        "wf-switch-inflation/ignore/summary.json",
    ] {
        assert!(out.join(f).exists(), "{f} written");
    }
    let _ = std::fs::remove_dir_all(&out);
}
