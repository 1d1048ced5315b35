//! `[[link_change]]`: a link's rate or delay changes at a given time (the TFMCC paper's Fig. 13 raises one
//! receiver's RTT mid-run).

use super::context::Ctx;
use super::locate::KeyPath;
use super::model::LinkChangeDef;
use super::schema::LinkChangeSpec;
use super::semantic::{fail, Res};
use std::time::Duration;

/// Resolve every `[[link_change]]` of the file against the links (those of `[[link]]` and of `[[fanout]]`),
/// in file order.
pub fn resolve_link_changes(cx: &Ctx<'_>, duration: Duration) -> Res<Vec<LinkChangeDef>> {
    let root = KeyPath::root();
    let mut out = Vec::with_capacity(cx.file.link_change.len());
    for (i, c) in cx.file.link_change.iter().enumerate() {
        out.push(resolve_one(
            cx,
            c,
            &root.key("link_change").index(i),
            duration,
        )?);
    }
    Ok(out)
}

fn resolve_one(
    cx: &Ctx<'_>,
    c: &LinkChangeSpec,
    p: &KeyPath,
    duration: Duration,
) -> Res<LinkChangeDef> {
    let Some(&link) = cx.link_index.get(&c.link) else {
        return fail(
            &p.key("link"),
            format!(
                "no link `{}` (a `[[link]]` name, or `<hub>-<host>` of a fan-out)",
                c.link
            ),
        );
    };
    if c.at.0 >= duration {
        return fail(
            &p.key("at"),
            format!("at {:?} is not before the run's end ({duration:?})", c.at.0),
        );
    }
    for (key, rate) in [("rate", c.rate), ("rate_back", c.rate_back)] {
        if rate.is_some_and(|r| r.0 == 0) {
            return fail(&p.key(key), "a link's rate must be above 0");
        }
    }
    if c.rate.is_none() && c.delay.is_none() && c.rate_back.is_none() && c.delay_back.is_none() {
        return fail(
            p,
            "a link change sets at least one of `rate`, `delay`, `rate_back`, `delay_back`",
        );
    }
    Ok(LinkChangeDef {
        at: c.at.0,
        link,
        rate_bps: c.rate.map(|r| r.0),
        delay: c.delay.map(|d| d.0),
        rate_back_bps: c.rate_back.map(|r| r.0),
        delay_back: c.delay_back.map(|d| d.0),
    })
}
