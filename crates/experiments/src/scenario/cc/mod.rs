//! Per-scheme scenario keys, one module per scheme as in convoy-proto's `cc/`: a session's `cc = "NAME"` picks
//! a scheme and its table `NAME = { ... }` configures it.
//!
//! A scheme's module defines its table (a serde struct that rejects unknown keys) and implements
//! [`SchemeKeys`]. It is registered once, in `for_each_scheme!`; from that list the schema generates the
//! names `cc` takes and the session's tables (`schema::SessionFileSpec`), and the flow resolution picks the
//! chosen scheme's table and rejects the others'.

use super::locate::KeyPath;
use super::semantic::Res;
use convoy_proto::cc::CcConfig;

/// What a scheme's scenario-keys module provides.
pub trait SchemeKeys {
    /// The scheme's name: the value of `cc` and the key of its table; the engine's name for it
    /// (`convoy_proto::cc::Scheme::NAME`).
    const NAME: &'static str;
    /// The controller of a session whose table is `keys` (`None` when absent), written at `path`; `session`
    /// is the session's own path, for errors about a missing table.
    fn resolve(keys: Option<&Self>, path: &KeyPath, session: &KeyPath) -> Res<CcConfig>;
}

/// The registered schemes: calls `$callback! { field: Variant(module::Spec), ... }` with one entry per scheme
/// (`field` is the scheme's name, `Variant` its `cc` value capitalised).
macro_rules! for_each_scheme {
    ($callback:ident) => {
        $callback! {
            pgmcc: Pgmcc(pgmcc::PgmccSpec),
            fixed: Fixed(fixed::FixedSpec),
            tfmcc: Tfmcc(tfmcc::TfmccSpec),
            aimd: Aimd(aimd::AimdSpec),
        }
    };
}
pub(crate) use for_each_scheme;

/// Declares each scheme's module.
macro_rules! declare_modules {
    ($($field:ident: $variant:ident($module:ident::$spec:ident)),* $(,)?) => {
        $( pub mod $module; )*
    };
}

for_each_scheme!(declare_modules);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::schema::CcSpec;

    macro_rules! names_agree {
        ($($field:ident: $variant:ident($module:ident::$spec:ident)),* $(,)?) => {
            $(
                assert_eq!(<$module::$spec as SchemeKeys>::NAME, stringify!($field));
                assert_eq!(CcSpec::$variant.name(), stringify!($field));
                assert!(
                    CcConfig::by_name(stringify!($field)).is_some(),
                    "the engine registers `{}`", stringify!($field)
                );
            )*
        };
    }

    #[test]
    fn every_scheme_has_one_name_in_the_file_the_table_and_the_engine() {
        for_each_scheme!(names_agree);
    }
}
