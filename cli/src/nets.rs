//! The evaluator the commands use: the shipped weights compiled into the
//! binary, or a file given with `--weights`.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use sheshbesh_engine::evaluation::evaluator::NetEvaluator;
use sheshbesh_engine::evaluation::net::FirstLayer;
use std::sync::Arc;

use sheshbesh_engine::formats::files::read_bounded;
use sheshbesh_engine::{evaluation::bearoff, evaluation::weights};

/// The shipped weights (see `weights/README.md` for how they were made).
static SHIPPED: &[u8] = include_bytes!("../../weights/sheshbesh.weights");

/// `--weights FILE` and `--first-layer`, declared once for every command
/// that evaluates.
#[derive(clap::Args, Debug, Clone, Default)]
pub struct WeightsArg {
    /// Weights file instead of the shipped weights.
    #[arg(long = "weights", value_name = "WEIGHTS")]
    path: Option<PathBuf>,
    /// How the nets compute their first layer: `float`, the reference, or
    /// `int16`, 16-bit integers made from the floats when loaded (the same
    /// 0-ply play on 99.7% of real rolls; no faster than `float` where
    /// float and integer multiply-adds run at one speed, as on AVX-512).
    #[arg(long = "first-layer", value_enum, default_value_t = FirstLayerArg::Float)]
    first_layer: FirstLayerArg,
}

/// The values of `--first-layer`.
#[derive(clap::ValueEnum, Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum FirstLayerArg {
    #[default]
    Float,
    Int16,
}

impl WeightsArg {
    /// The file given, if any.
    pub fn file(&self) -> Option<&Path> {
        self.path.as_deref()
    }

    /// The evaluator these arguments name.
    pub fn load(&self) -> Result<NetEvaluator> {
        let first = match self.first_layer {
            FirstLayerArg::Float => FirstLayer::Float,
            FirstLayerArg::Int16 => FirstLayer::Int16,
        };
        Ok(load(self.file())?.with_first_layer(first))
    }
}

/// Loads the evaluator from `path`, or the shipped weights.
pub fn load(path: Option<&Path>) -> Result<NetEvaluator> {
    let (bytes, name) = match path {
        Some(p) => (
            read_bounded(p, weights::FILE_LIMIT)
                .with_context(|| format!("bad weights \"{}\": cannot read", p.display()))?,
            p.display().to_string(),
        ),
        None => (SHIPPED.to_vec(), "shipped weights".to_string()),
    };
    let set = weights::decode(&bytes).with_context(|| format!("bad weights \"{name}\""))?;
    let ev = NetEvaluator::from_weights(&set).with_context(|| format!("bad weights \"{name}\""))?;
    let path = bearoff::default_path();
    let db = bearoff::load_or_build(&path)
        .with_context(|| format!("bear-off database cache {}", path.display()))?;
    Ok(ev.with_bearoff(Arc::new(db)))
}
