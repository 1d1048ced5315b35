//! Random loss on a link direction: Bernoulli, or the two-state Gilbert–Elliott channel.

use crate::seed::unit;
use rand_chacha::ChaCha8Rng;

/// Loss model parameters.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ImpairmentConfig {
    /// No random loss.
    None,
    /// Each packet lost independently with probability `p`.
    Bernoulli {
        /// Loss probability.
        p: f64,
    },
    /// Gilbert–Elliott: a good and a bad state with their own loss probabilities; per packet the channel moves
    /// good→bad with `p_gb` and bad→good with `p_bg` (mean burst length 1/`p_bg` packets).
    GilbertElliott {
        /// Transition probability good → bad.
        p_gb: f64,
        /// Transition probability bad → good.
        p_bg: f64,
        /// Loss probability in the good state.
        loss_good: f64,
        /// Loss probability in the bad state.
        loss_bad: f64,
    },
}

impl ImpairmentConfig {
    /// The long-run loss rate.
    pub fn mean_loss(&self) -> f64 {
        match *self {
            ImpairmentConfig::None => 0.0,
            ImpairmentConfig::Bernoulli { p } => p,
            ImpairmentConfig::GilbertElliott {
                p_gb,
                p_bg,
                loss_good,
                loss_bad,
            } => {
                let pi_bad = if p_gb + p_bg > 0.0 {
                    p_gb / (p_gb + p_bg)
                } else {
                    0.0
                };
                (1.0 - pi_bad) * loss_good + pi_bad * loss_bad
            }
        }
    }
}

/// A loss model with its state.
#[derive(Clone, Debug)]
pub struct Impairment {
    config: ImpairmentConfig,
    bad: bool,
}

impl Impairment {
    /// Start in the good state.
    pub fn new(config: ImpairmentConfig) -> Self {
        Impairment { config, bad: false }
    }

    /// Its configuration.
    pub fn config(&self) -> ImpairmentConfig {
        self.config
    }

    /// Whether this model can lose anything (and so needs a random stream).
    pub fn is_lossy(&self) -> bool {
        self.config != ImpairmentConfig::None
    }

    /// Draw the fate of one packet: `true` = lost.
    pub fn lose(&mut self, rng: &mut ChaCha8Rng) -> bool {
        match self.config {
            ImpairmentConfig::None => false,
            ImpairmentConfig::Bernoulli { p } => p > 0.0 && unit(rng) < p,
            ImpairmentConfig::GilbertElliott {
                p_gb,
                p_bg,
                loss_good,
                loss_bad,
            } => {
                let flip = if self.bad { p_bg } else { p_gb };
                if unit(rng) < flip {
                    self.bad = !self.bad;
                }
                let p = if self.bad { loss_bad } else { loss_good };
                p > 0.0 && unit(rng) < p
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::seed::component_rng;

    fn rate(cfg: ImpairmentConfig, n: usize) -> (f64, f64) {
        let mut imp = Impairment::new(cfg);
        let mut rng = component_rng(11, "imp");
        let fates: Vec<bool> = (0..n).map(|_| imp.lose(&mut rng)).collect();
        let lost = fates.iter().filter(|l| **l).count();
        // Mean length of loss bursts.
        let mut bursts = 0;
        for w in fates.windows(2) {
            if w[1] && !w[0] {
                bursts += 1;
            }
        }
        (lost as f64 / n as f64, lost as f64 / bursts.max(1) as f64)
    }

    #[test]
    fn bernoulli_rate() {
        let (r, burst) = rate(ImpairmentConfig::Bernoulli { p: 0.03 }, 200_000);
        assert!((r - 0.03).abs() < 0.002, "{r}");
        assert!(burst < 1.1);
    }

    #[test]
    fn gilbert_elliott_rate_and_bursts() {
        let cfg = ImpairmentConfig::GilbertElliott {
            p_gb: 0.01,
            p_bg: 0.25,
            loss_good: 0.0,
            loss_bad: 1.0,
        };
        assert!((cfg.mean_loss() - 0.01 / 0.26).abs() < 1e-12);
        let (r, burst) = rate(cfg, 400_000);
        assert!((r - cfg.mean_loss()).abs() < 0.004, "{r}");
        assert!(
            (burst - 4.0).abs() < 0.4,
            "mean burst {burst} packets, expected 1/p_bg = 4"
        );
    }
}
