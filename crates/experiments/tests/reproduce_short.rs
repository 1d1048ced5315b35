//! `convoy reproduce` on two experiments of the pgmcc paper, checked in CI (issue 4): the acker-selection
//! experiment passes; the TCP-sharing experiment's checks are computed, its fairness checks pass, and its
//! switch control shows that acker switches leave the rate untouched.

use convoy_experiments::reproduce::{reproduce, ReproduceOptions};
use std::path::PathBuf;

#[test]
fn fig5_acker_and_fig4_nonlossy_verdicts() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    let out = std::env::temp_dir().join(format!("convoy-reproduce-test-{}", std::process::id()));
    let opts = ReproduceOptions {
        ids: vec!["pgmcc-fig5-acker".into(), "pgmcc-fig4-nonlossy".into()],
        out: out.clone(),
        seeds: 1,
        jobs: 2,
        scenarios: root.join("scenarios"),
    };
    let verdicts = reproduce(&opts, &mut |_| {}).expect("the experiments run");
    let fig5 = verdicts
        .iter()
        .find(|v| v.id == "pgmcc-fig5-acker")
        .unwrap();
    assert!(fig5.pass, "{:#?}", fig5.checks);
    assert_eq!(fig5.checks.len(), 6);
    let fig4 = verdicts
        .iter()
        .find(|v| v.id == "pgmcc-fig4-nonlossy")
        .unwrap();
    let check = |what: &str| {
        fig4.checks
            .iter()
            .find(|c| c.what.starts_with(what))
            .unwrap_or_else(|| panic!("{what}"))
    };
    assert!(check("pgmcc / TCP").pass, "{:?}", check("pgmcc / TCP"));
    assert!(check("pgmcc regains").pass, "{:?}", check("pgmcc regains"));
    // Acker switches do not change the rate: the c = 0.75 control (no switches) has the same 10 s bins.
    assert!(
        check("control run").measured.ends_with("; 0 kbit/s"),
        "{:?}",
        check("control run")
    );
    for f in [
        "verdicts.json",
        "index.html",
        "pgmcc-fig5-acker/summary.json",
        "pgmcc-fig5-acker/seq-pgmcc.svg",
    ] {
        assert!(out.join(f).exists(), "{f} written");
    }
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("verdicts.json")).unwrap()).unwrap();
    for v in json.as_array().unwrap() {
        for key in [
            "id", "source", "claim", "expected", "measured", "pass", "status", "seeds",
        ] {
            assert!(v.get(key).is_some(), "verdicts.json entry lacks `{key}`");
        }
    }
    let _ = std::fs::remove_dir_all(&out);
}

#[test]
fn fig2_filter_lists_each_figure_once() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    let out = std::env::temp_dir().join(format!("convoy-reproduce-fig2-{}", std::process::id()));
    let opts = ReproduceOptions {
        ids: vec!["pgmcc-fig2-filter".into()],
        out: out.clone(),
        seeds: 1,
        jobs: 1,
        scenarios: root.join("scenarios"),
    };
    let verdicts = reproduce(&opts, &mut |_| {}).expect("the experiment runs");
    let figures = &verdicts[0].figures;
    let mut unique = figures.clone();
    unique.sort();
    unique.dedup();
    assert_eq!(unique.len(), figures.len(), "{figures:?}");
    assert!(figures.contains(&"pgmcc-fig2-filter/filter.svg".to_string()));
    let html = std::fs::read_to_string(out.join("index.html")).unwrap();
    assert_eq!(
        html.matches("pgmcc-fig2-filter/filter.svg\"").count(),
        2,
        "src and alt of one <img>"
    );
    let _ = std::fs::remove_dir_all(&out);
}
