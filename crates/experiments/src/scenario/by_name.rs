//! Engine options written by name in scenario files (`start = "until-congestion"`, `repairs = "controller"`):
//! the names are the engine's own ([`Named`]), so a scenario file and `convoy send` accept the same words.

use convoy_proto::named::Named;
use serde::de::{self, Deserializer};
use serde::Deserialize;

/// An engine option given by its name; an unknown name is refused with the valid ones.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ByName<T>(pub T);

impl<'de, T: Named> Deserialize<'de> for ByName<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let name = String::deserialize(d)?;
        T::from_name(&name).map(ByName).ok_or_else(|| {
            de::Error::custom(format!(
                "unknown variant `{name}`, expected {}",
                T::expected()
            ))
        })
    }
}

/// The option named at a key, or `default` where the key is absent.
pub fn or<T: Clone>(given: &Option<ByName<T>>, default: T) -> T {
    given.as_ref().map_or(default, |b| b.0.clone())
}

#[cfg(test)]
mod tests {
    use super::*;
    use convoy_proto::RepairPacing;

    #[derive(Deserialize)]
    struct Keys {
        repairs: ByName<RepairPacing>,
    }

    #[test]
    fn a_name_reads_as_the_engine_s_choice_and_a_wrong_one_lists_the_valid_ones() {
        let k: Keys = toml::from_str("repairs = \"controller\"").unwrap();
        assert_eq!(k.repairs.0, RepairPacing::Controller);
        let e = toml::from_str::<Keys>("repairs = \"later\"")
            .err()
            .unwrap()
            .to_string();
        assert!(
            e.contains(
                "unknown variant `later`, expected `rate-limit`, `controller-rate` or `controller`"
            ),
            "{e}"
        );
    }
}
