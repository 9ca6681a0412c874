//! How the commands print for machines: the `--json` and `--batch` flags
//! they share, and the one rounding of the figures their JSON shows.

/// Options shared by the commands with a machine interface.
#[derive(clap::Args, Debug, Clone, Copy)]
pub struct Output {
    /// Print one JSON object instead of text.
    #[arg(long)]
    pub json: bool,
    /// Read inputs from stdin, one per line, and answer one JSON object per
    /// line (a co-process interface; bad lines answer {"error": ...}).
    #[arg(long)]
    pub batch: bool,
}

/// `x` to `places` decimals (0 to 6), as JSON output shows figures: the
/// one rounding of the command line.
pub fn rounded(x: f32, places: usize) -> f64 {
    const SCALE: [f64; 7] = [1.0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6];
    let scale = SCALE[places];
    (f64::from(x) * scale).round() / scale
}
