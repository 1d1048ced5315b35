//! Engine options chosen by name: in scenario files (docs/scenario-format.md), on `convoy send`'s command line
//! and in results. Each option type lists its choices with their names once ([`Named::CHOICES`]); parsing,
//! printing and the list of valid names in an error all read that list.

use std::mem::discriminant;

/// An option type whose values are chosen by name.
pub trait Named: Clone + 'static {
    /// Every choice with its name, in the order documentation lists them. A variant that carries parameters
    /// appears once, with its default parameters: its name stands for the variant whatever they are.
    const CHOICES: &'static [(&'static str, Self)];

    /// This value's name.
    fn name(&self) -> &'static str {
        Self::CHOICES
            .iter()
            .find(|(_, c)| discriminant(c) == discriminant(self))
            .map_or("?", |(n, _)| n)
    }

    /// The choice named `name` (with the variant's default parameters).
    fn from_name(name: &str) -> Option<Self> {
        Self::CHOICES
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, c)| c.clone())
    }

    /// The valid names for a message: `` `a`, `b` or `c` ``.
    fn expected() -> String {
        let names: Vec<String> = Self::CHOICES
            .iter()
            .map(|(n, _)| format!("`{n}`"))
            .collect();
        match names.split_last() {
            Some((last, rest)) if !rest.is_empty() => format!("{} or {last}", rest.join(", ")),
            Some((last, _)) => last.clone(),
            None => String::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[derive(Clone, Debug, PartialEq)]
    enum Timer {
        Uniform,
        Biased { n: u32 },
        Fixed(Duration),
    }

    impl Named for Timer {
        const CHOICES: &'static [(&'static str, Self)] = &[
            ("uniform", Timer::Uniform),
            ("biased", Timer::Biased { n: 10_000 }),
            ("fixed", Timer::Fixed(Duration::from_secs(1))),
        ];
    }

    #[test]
    fn names_and_choices_go_both_ways() {
        assert_eq!(
            Timer::from_name("biased"),
            Some(Timer::Biased { n: 10_000 })
        );
        assert_eq!(
            Timer::Biased { n: 7 }.name(),
            "biased",
            "the name stands for the variant"
        );
        assert_eq!(Timer::Fixed(Duration::ZERO).name(), "fixed");
        assert_eq!(Timer::from_name("exponential"), None);
        assert_eq!(Timer::expected(), "`uniform`, `biased` or `fixed`");
    }

    #[test]
    fn every_registered_option_type_round_trips_its_names() {
        fn check<T: Named + PartialEq + std::fmt::Debug>() {
            for (name, choice) in T::CHOICES {
                assert_eq!(choice.name(), *name);
                assert_eq!(T::from_name(name).as_ref(), Some(choice));
            }
            let mut names: Vec<&str> = T::CHOICES.iter().map(|(n, _)| *n).collect();
            names.sort_unstable();
            names.dedup();
            assert_eq!(names.len(), T::CHOICES.len(), "names are distinct");
        }
        use crate::cc::pgmcc::*;
        check::<StartUp>();
        check::<LosslessAcker>();
        check::<RttMethod>();
        check::<TimeoutRestart>();
        check::<LossReaction>();
        check::<OldAckerAcks>();
        check::<TimestampUnit>();
        check::<LossEstimator>();
        check::<ElectionTimer>();
        check::<crate::throughput::ThroughputModel>();
        check::<crate::cc::tfmcc::timer::FeedbackBias>();
        check::<crate::RepairPacing>();
    }
}
