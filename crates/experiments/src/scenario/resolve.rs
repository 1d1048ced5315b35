//! From the file's structures to a validated [`Scenario`]: run parameters, nodes, links, fanouts, plots and
//! reachability. Flows are in `flows`.

use super::context::Ctx;
use super::locate::KeyPath;
use super::model::{LinkDef, Scenario, SeqPlot};
use super::schema::{
    FanoutSpec, GilbertSpec, LinkSpec, NodeKindSpec, Observe, RedSpec, ScenarioFile,
};
use super::semantic::{check_name, check_prob, fail, fail_related, Res};
use super::units::Size;
use convoy_sim::impairment::ImpairmentConfig;
use convoy_sim::link::LinkConfig;
use convoy_sim::ne::NeConfig;
use convoy_sim::queue::{Limit, QueueConfig, RedConfig};
use convoy_sim::NodeKind;
use std::collections::BTreeMap;
use std::time::Duration;

/// Default queue limit of a link (docs/experiments.md#common-defaults: drop-tail 1000 packets).
pub const DEFAULT_QUEUE: Size = Size::Packets(1000);

/// Resolve the run parameters, the topology and the plots; `flows` fills in the traffic.
pub fn resolve(file: &ScenarioFile, name: &str) -> Res<Scenario> {
    let root = KeyPath::root();
    let run = &file.run;
    let rp = root.key("run");
    let duration = run.duration.0;
    if duration.is_zero() {
        return fail(&rp.key("duration"), "the run must last longer than 0s");
    }
    let interval = run.interval.map_or(Duration::from_secs(1), |d| d.0);
    if interval.is_zero() {
        return fail(
            &rp.key("interval"),
            "the throughput interval must be longer than 0s",
        );
    }
    let sample = run.sample.map_or(Duration::from_millis(100), |d| d.0);
    let scale = run.scale.unwrap_or(1.0);
    if !(scale > 0.0 && scale.is_finite()) {
        return fail(&rp.key("scale"), format!("scale {scale} must be positive"));
    }
    let mut cx = Ctx {
        file,
        seed: run.seed.unwrap_or(1),
        nodes: Vec::new(),
        node_index: BTreeMap::new(),
        links: Vec::new(),
        link_index: BTreeMap::new(),
        flow_names: BTreeMap::new(),
        component: Vec::new(),
    };
    nodes(&mut cx)?;
    let defaults = match &file.defaults.link {
        Some(d) => {
            let p = root.key("defaults").key("link");
            check_link_fields(d, &p, false)?;
            d.clone()
        }
        None => LinkSpec::default(),
    };
    for (i, l) in file.link.iter().enumerate() {
        let p = root.key("link").index(i);
        check_link_fields(l, &p, true)?;
        let Some(between) = &l.between else {
            return fail(&p, "missing field `between` (the link's two nodes)");
        };
        let [a, b] = between.as_slice() else {
            return fail(
                &p.key("between"),
                format!("`between` names 2 nodes, not {}", between.len()),
            );
        };
        if a == b {
            return fail(
                &p.key("between"),
                format!("a link joins two different nodes, not `{a}` to itself"),
            );
        }
        // Nodes not declared in [[node]] are hosts.
        for n in [a, b] {
            if !cx.node_index.contains_key(n) {
                cx.add_node(n, NodeKind::Host, &p.key("between"))?;
            }
        }
        let name = l.name.clone().unwrap_or_else(|| format!("{a}-{b}"));
        let merged = merge_link(l, &defaults);
        let (fwd, back) = link_configs(&merged, &p, scale)?;
        let ends = (cx.node_index[a], cx.node_index[b]);
        add_link(&mut cx, &name, ends, (fwd, back), merged.observe, &p)?;
    }
    for (i, f) in file.fanout.iter().enumerate() {
        fanout(&mut cx, f, &defaults, &root.key("fanout").index(i), scale)?;
    }
    cx.component = components(cx.nodes.len(), &cx.links);
    let mut scenario = Scenario {
        name: name.to_string(),
        duration,
        seed: cx.seed,
        interval,
        sample,
        nodes: Vec::new(),
        links: Vec::new(),
        sessions: Vec::new(),
        tcp: Vec::new(),
        udp: Vec::new(),
        sequence_plots: Vec::new(),
        link_changes: Vec::new(),
    };
    super::flows::resolve_flows(&mut cx, &mut scenario)?;
    scenario.link_changes = super::changes::resolve_link_changes(&cx, duration)?;
    plots(file, &mut scenario)?;
    scenario.nodes = cx.nodes;
    scenario.links = cx.links;
    Ok(scenario)
}

fn nodes(cx: &mut Ctx<'_>) -> Res<()> {
    for (i, n) in cx.file.node.iter().enumerate() {
        let p = KeyPath::root().key("node").index(i);
        let kind = match (n.kind.unwrap_or(NodeKindSpec::Host), &n.ne) {
            (NodeKindSpec::PgmRouter, ne) => {
                let d = NeConfig::default();
                let ne = ne.clone().map(|e| NeConfig {
                    suppress_naks: e.suppress.unwrap_or(d.suppress_naks),
                    rx_loss_aware: e.rx_loss_aware.unwrap_or(d.rx_loss_aware),
                    send_ncf: e.ncf.unwrap_or(d.send_ncf),
                    selective_rdata: e.selective_rdata.unwrap_or(d.selective_rdata),
                    state_lifetime: e.state_lifetime.map_or(d.state_lifetime, |x| x.0),
                });
                NodeKind::PgmRouter(ne.unwrap_or(d))
            }
            (_, Some(_)) => {
                return fail(&p.key("ne"), "`ne` applies to kind = \"pgm-router\" only")
            }
            (NodeKindSpec::Router, None) => NodeKind::Router,
            (NodeKindSpec::Host, None) => NodeKind::Host,
        };
        cx.add_node(&n.name, kind, &p.key("name"))?;
    }
    Ok(())
}

/// Range checks on the fields a link spec sets (links, `[defaults] link`, fanout links).
fn check_link_fields(l: &LinkSpec, p: &KeyPath, is_link: bool) -> Res<()> {
    if !is_link {
        if l.name.is_some() {
            return fail(
                &p.key("name"),
                "`name` is not allowed here (it names one [[link]])",
            );
        }
        if l.between.is_some() {
            return fail(
                &p.key("between"),
                "`between` is not allowed here (it belongs to one [[link]])",
            );
        }
    }
    if let Some(n) = &l.name {
        check_name(n, &p.key("name"))?;
    }
    for (key, r) in [("rate", l.rate), ("rate_back", l.rate_back)] {
        if r.is_some_and(|r| r.0 == 0) {
            return fail(&p.key(key), "a link rate must be above 0 bit/s");
        }
    }
    for (key, q) in [("queue", l.queue), ("queue_back", l.queue_back)] {
        if matches!(q, Some(Size::Packets(0)) | Some(Size::Bytes(0))) {
            return fail(
                &p.key(key),
                "a queue must hold something (use 1pkt for a minimal buffer)",
            );
        }
    }
    for (key, v) in [("loss", l.loss), ("loss_back", l.loss_back)] {
        if let Some(v) = v {
            check_prob(v, &p.key(key))?;
        }
    }
    for (key, g) in [("gilbert", &l.gilbert), ("gilbert_back", &l.gilbert_back)] {
        if let Some(g) = g {
            let gp = p.key(key);
            check_prob(g.p_gb, &gp.key("p_gb"))?;
            check_prob(g.p_bg, &gp.key("p_bg"))?;
            check_prob(g.loss_good.unwrap_or(0.0), &gp.key("loss_good"))?;
            check_prob(g.loss_bad.unwrap_or(1.0), &gp.key("loss_bad"))?;
        }
    }
    if l.loss.is_some() && l.gilbert.is_some() {
        let msg = "give either `loss` (Bernoulli) or `gilbert`, not both";
        return fail_related(&p.key("gilbert"), &[p.key("loss")], msg);
    }
    if l.loss_back.is_some() && l.gilbert_back.is_some() {
        let msg = "give either `loss_back` or `gilbert_back`, not both";
        return fail_related(&p.key("gilbert_back"), &[p.key("loss_back")], msg);
    }
    for (key, r) in [("red", &l.red), ("red_back", &l.red_back)] {
        if let Some(r) = r {
            let rp = p.key(key);
            if !(r.min >= 0.0 && r.min < r.max) {
                return fail(
                    &rp,
                    format!("RED needs 0 <= min < max (min {}, max {})", r.min, r.max),
                );
            }
            let w = r.weight.unwrap_or(0.002);
            if !(w > 0.0 && w <= 1.0) {
                return fail(
                    &rp.key("weight"),
                    format!("RED weight {w} must be in (0, 1]"),
                );
            }
            let mp = r.max_p.unwrap_or(0.1);
            if !(mp > 0.0 && mp <= 1.0) {
                return fail(
                    &rp.key("max_p"),
                    format!("RED max_p {mp} must be in (0, 1]"),
                );
            }
        }
    }
    Ok(())
}

/// `l`'s own values over the defaults'. Loss models go as one: a link that sets `loss` or `gilbert` for a
/// direction ignores both defaults of that direction.
fn merge_link(l: &LinkSpec, d: &LinkSpec) -> LinkSpec {
    let own_fwd = l.loss.is_some() || l.gilbert.is_some();
    let own_back = l.loss_back.is_some() || l.gilbert_back.is_some();
    LinkSpec {
        name: l.name.clone(),
        between: l.between.clone(),
        rate: l.rate.or(d.rate),
        rate_back: l.rate_back.or(d.rate_back),
        delay: l.delay.or(d.delay),
        delay_back: l.delay_back.or(d.delay_back),
        queue: l.queue.or(d.queue),
        queue_back: l.queue_back.or(d.queue_back),
        red: l.red.or(d.red),
        red_back: l.red_back.or(d.red_back),
        loss: if own_fwd { l.loss } else { d.loss },
        loss_back: if own_back { l.loss_back } else { d.loss_back },
        gilbert: if own_fwd { l.gilbert } else { d.gilbert },
        gilbert_back: if own_back {
            l.gilbert_back
        } else {
            d.gilbert_back
        },
        observe: l.observe.or(d.observe),
        scaled: l.scaled.or(d.scaled),
    }
}

fn queue(size: Size, red: Option<RedSpec>, p: &KeyPath) -> Res<QueueConfig> {
    let limit = match size {
        Size::Packets(n) => Limit::Packets(u32::try_from(n).unwrap_or(u32::MAX)),
        Size::Bytes(n) => Limit::Bytes(n),
    };
    Ok(match red {
        None => QueueConfig::DropTail(limit),
        Some(r) => {
            if matches!(limit, Limit::Bytes(_)) && r.max < 1500.0 {
                return fail(
                    p,
                    format!("this queue counts bytes, so RED thresholds are bytes: max {} is below one packet", r.max),
                );
            }
            QueueConfig::Red(
                limit,
                RedConfig {
                    min_th: r.min,
                    max_th: r.max,
                    weight: r.weight.unwrap_or(0.002),
                    max_p: r.max_p.unwrap_or(0.1),
                    gentle: r.gentle.unwrap_or(false),
                },
            )
        }
    })
}

fn impairment(loss: Option<f64>, g: Option<GilbertSpec>) -> ImpairmentConfig {
    match (loss, g) {
        (_, Some(g)) => ImpairmentConfig::GilbertElliott {
            p_gb: g.p_gb,
            p_bg: g.p_bg,
            loss_good: g.loss_good.unwrap_or(0.0),
            loss_bad: g.loss_bad.unwrap_or(1.0),
        },
        (Some(p), None) if p > 0.0 => ImpairmentConfig::Bernoulli { p },
        _ => ImpairmentConfig::None,
    }
}

/// Both directions of a merged link spec.
fn link_configs(l: &LinkSpec, p: &KeyPath, scale: f64) -> Res<(LinkConfig, LinkConfig)> {
    let Some(rate) = l.rate else {
        return fail(p, "missing `rate` (here or in [defaults] link)");
    };
    let Some(delay) = l.delay else {
        return fail(p, "missing `delay` (here or in [defaults] link)");
    };
    let factor = if l.scaled.unwrap_or(false) {
        scale
    } else {
        1.0
    };
    let scaled = |r: u64| ((r as f64 * factor).round() as u64).max(1);
    let q = l.queue.unwrap_or(DEFAULT_QUEUE);
    let fwd = LinkConfig {
        rate_bps: scaled(rate.0),
        delay: delay.0,
        queue: queue(q, l.red, &p.key("red"))?,
        impairment: impairment(l.loss, l.gilbert),
    };
    let back = LinkConfig {
        rate_bps: scaled(l.rate_back.unwrap_or(rate).0),
        delay: l.delay_back.unwrap_or(delay).0,
        queue: queue(
            l.queue_back.unwrap_or(q),
            l.red_back.or(l.red),
            &p.key("red_back"),
        )?,
        impairment: impairment(l.loss_back, l.gilbert_back),
    };
    Ok((fwd, back))
}

fn add_link(
    cx: &mut Ctx<'_>,
    name: &str,
    (a, b): (usize, usize),
    (forward, backward): (LinkConfig, LinkConfig),
    observe: Option<Observe>,
    p: &KeyPath,
) -> Res<()> {
    check_name(name, &p.key("name"))?;
    if cx.link_index.contains_key(name) {
        return fail(
            p,
            format!("link name `{name}` is used twice; give one of them a `name`"),
        );
    }
    let observe = observe.unwrap_or(Observe::None);
    cx.link_index.insert(name.to_string(), cx.links.len());
    cx.links.push(LinkDef {
        name: name.to_string(),
        a,
        b,
        forward,
        backward,
        observe_forward: matches!(observe, Observe::Forward | Observe::Both),
        observe_back: matches!(observe, Observe::Back | Observe::Both),
    });
    Ok(())
}

fn fanout(
    cx: &mut Ctx<'_>,
    f: &FanoutSpec,
    defaults: &LinkSpec,
    p: &KeyPath,
    scale: f64,
) -> Res<()> {
    let hub = cx.node(&f.hub, &p.key("hub"))?;
    check_name(&f.prefix, &p.key("prefix"))?;
    if f.count == 0 {
        return fail(&p.key("count"), "a fanout needs at least 1 host");
    }
    let own = f.link.clone().unwrap_or_default();
    check_link_fields(&own, &p.key("link"), false)?;
    let mut spec = merge_link(&own, defaults);
    if let Some([lo, hi]) = f.loss_range {
        check_prob(lo, &p.key("loss_range"))?;
        check_prob(hi, &p.key("loss_range"))?;
        if lo > hi {
            return fail(&p.key("loss_range"), format!("[{lo}, {hi}] is not a range"));
        }
        if spec.gilbert.is_some() {
            return fail(
                &p.key("loss_range"),
                "`loss_range` replaces Bernoulli loss; drop `gilbert`",
            );
        }
    }
    if let Some([lo, hi]) = f.delay_range {
        if lo > hi {
            return fail(
                &p.key("delay_range"),
                "the first delay must not exceed the second",
            );
        }
    }
    let first = f.first.unwrap_or(1);
    for i in first..first.saturating_add(f.count) {
        let host = format!("{}{i}", f.prefix);
        let node = cx.add_node(&host, NodeKind::Host, &p.key("prefix"))?;
        if let Some([lo, hi]) = f.loss_range {
            spec.loss = Some(lo + (hi - lo) * cx.draw(&format!("loss:{host}")));
        }
        if let Some([lo, hi]) = f.delay_range {
            let d = lo.0 + (hi.0 - lo.0).mul_f64(cx.draw(&format!("delay:{host}")));
            spec.delay = Some(super::units::Dur(d));
            spec.delay_back = Some(super::units::Dur(d));
        }
        let (fwd, back) = link_configs(&spec, &p.key("link"), scale)?;
        add_link(
            cx,
            &format!("{}-{host}", f.hub),
            (hub, node),
            (fwd, back),
            spec.observe,
            p,
        )?;
    }
    Ok(())
}

fn plots(file: &ScenarioFile, s: &mut Scenario) -> Res<()> {
    for (i, q) in file.plot.sequence.iter().enumerate() {
        let p = KeyPath::root().key("plot").key("sequence").index(i);
        let session = match &q.session {
            Some(name) => match s.sessions.iter().position(|x| &x.name == name) {
                Some(k) => k,
                None => return fail(&p.key("session"), format!("no [[session]] named `{name}`")),
            },
            None if s.sessions.is_empty() => {
                return fail(&p, "a time–sequence plot needs a [[session]]")
            }
            None => 0,
        };
        let from = q.from.map_or(Duration::ZERO, |d| d.0);
        let to = q.to.map(|d| d.0);
        if to.is_some_and(|t| t <= from) {
            return fail(&p.key("to"), "`to` must come after `from`");
        }
        s.sessions[session].trace = true;
        s.sequence_plots.push(SeqPlot { session, from, to });
    }
    if file.plot.sequence.is_empty() {
        for (k, sess) in s.sessions.iter().enumerate() {
            if sess.trace {
                s.sequence_plots.push(SeqPlot {
                    session: k,
                    from: Duration::ZERO,
                    to: None,
                });
            }
        }
    }
    Ok(())
}

/// Connected components of the topology (links are duplex), as a representative node per node.
fn components(n: usize, links: &[LinkDef]) -> Vec<usize> {
    fn root(c: &mut [usize], mut i: usize) -> usize {
        while c[i] != i {
            c[i] = c[c[i]];
            i = c[i];
        }
        i
    }
    let mut comp: Vec<usize> = (0..n).collect();
    for l in links {
        let (ra, rb) = (root(&mut comp, l.a), root(&mut comp, l.b));
        comp[ra] = rb;
    }
    (0..n).map(|i| root(&mut comp, i)).collect()
}
