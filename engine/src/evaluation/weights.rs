//! The weights file: the one place that knows how nets are stored.
//!
//! # Format (version [`VERSION`])
//! 1. 8 bytes of magic, [`MAGIC`];
//! 2. a bincode-2 [`Header`]: format version, input-layout id, each net's
//!    name and layer sizes ([`NetShape`]), the SHA-256 of the tensor
//!    section, and a free provenance text;
//! 3. the tensor section: bincode-2 `Vec<Vec<f32>>`, per net `w1` (inputs x
//!    hidden, row-major), `b1`, `w_mid` (hidden2 x hidden), `b_mid`, `w2` (5
//!    x (hidden + hidden2)), `b2`.
//!
//! Version 1 files (one hidden layer: no `hidden2` in the header, no
//! `w_mid` and `b_mid` tensors) are still read.
//!
//! Every field is checked on reading, so a wrong, truncated or corrupt file
//! is a [`WeightsError`] naming what is wrong, never a panic or a silently
//! different net.

use ndarray::{Array1, Array2};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use thiserror::Error;

use crate::evaluation::inputs::Layout;
use crate::evaluation::net::{Net, Params, BLOCK, BLOCK2, MAX_HIDDEN, MAX_HIDDEN2, OUTPUTS};

/// The name of a weights file's pre-filter net (see
/// `evaluation::prefilter`), which reads other inputs than the layout's.
pub const PREFILTER_NET: &str = "prefilter";

/// The first bytes of every weights file.
pub const MAGIC: [u8; 8] = *b"SHESHNET";
/// The format version this build writes.
pub const VERSION: u32 = 2;
/// The oldest format version this build reads.
pub const OLDEST_VERSION: u32 = 1;

/// What went wrong reading a weights file.
#[derive(Debug, Error)]
pub enum WeightsError {
    /// Not a weights file at all.
    #[error("not a Sheshbesh weights file (bad magic bytes)")]
    Magic,
    /// Written by another format version.
    #[error("weights format version {0}, this build reads versions {OLDEST_VERSION} to {VERSION}")]
    Version(u32),
    /// Made for another input layout.
    #[error("weights are for input layout {0}, which this build does not know (it reads 2 and 3)")]
    Layout(u32),
    /// A section could not be decoded (truncated or garbled).
    #[error("weights file {section} is unreadable: {reason}")]
    Decode {
        /// Which part.
        section: &'static str,
        /// The decoder's words.
        reason: String,
    },
    /// The tensors do not hash to the header's checksum.
    #[error("weights file is corrupt: the tensor checksum does not match")]
    Checksum,
    /// The header and the tensors disagree, or sizes are unusable.
    #[error("weights file has a bad shape: {0}")]
    Shape(String),
    /// A net the caller needs is missing.
    #[error("weights file has no net named {0:?}")]
    Missing(String),
    /// Bytes after the tensors.
    #[error("weights file has {0} unexpected trailing bytes")]
    Trailing(usize),
}

/// The header of a weights file.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Header {
    /// Format version ([`VERSION`]).
    pub version: u32,
    /// Input layout id ([`Layout::id`]).
    pub layout: u32,
    /// Each net's name and sizes, in file order.
    pub nets: Vec<NetShape>,
    /// SHA-256 of the tensor section.
    pub checksum: [u8; 32],
    /// How the weights were made (free text, usually JSON).
    pub provenance: String,
}

/// A net's name and layer sizes, as the header lists them.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct NetShape {
    /// The net's name (`contact`, `race`).
    pub name: String,
    /// Inputs.
    pub inputs: u32,
    /// Units of the first hidden layer.
    pub hidden: u32,
    /// Units of the second hidden layer (0: none).
    pub hidden2: u32,
}

/// The version-1 header: the same fields, nets without a second layer.
#[derive(Deserialize)]
struct HeaderV1 {
    version: u32,
    layout: u32,
    nets: Vec<(String, u32, u32)>,
    checksum: [u8; 32],
    provenance: String,
}

impl From<HeaderV1> for Header {
    fn from(h: HeaderV1) -> Header {
        Header {
            version: h.version,
            layout: h.layout,
            nets: h
                .nets
                .into_iter()
                .map(|(name, inputs, hidden)| NetShape {
                    name,
                    inputs,
                    hidden,
                    hidden2: 0,
                })
                .collect(),
            checksum: h.checksum,
            provenance: h.provenance,
        }
    }
}

/// Named nets plus provenance, as stored.
#[derive(Clone, Debug, PartialEq)]
pub struct WeightsSet {
    /// The input layout every net reads.
    pub layout: Layout,
    /// Nets by name.
    pub nets: Vec<(String, Net)>,
    /// How they were made.
    pub provenance: String,
}

impl WeightsSet {
    /// The net called `name`.
    pub fn get(&self, name: &str) -> Result<&Net, WeightsError> {
        self.nets
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, net)| net)
            .ok_or_else(|| WeightsError::Missing(name.to_string()))
    }
}

fn config() -> impl bincode::config::Config {
    bincode::config::standard()
}

/// The most bytes a weights file may ask the reader to allocate: several
/// times the largest nets the kernels take, and far below what would
/// abort the process when a damaged length field claims more.
const READ_LIMIT: usize = 64 << 20;

/// The longest weights file read from disk
/// ([`crate::formats::files::read_bounded`]): no longer file could be
/// one, as the reader refuses any length above this many bytes.
pub const FILE_LIMIT: u64 = READ_LIMIT as u64;

/// [`config`] for reading: every length a file states is checked against
/// [`READ_LIMIT`] before anything is allocated.
fn read_config() -> impl bincode::config::Config {
    bincode::config::standard().with_limit::<READ_LIMIT>()
}

/// A net's tensors in file order ([`Net::parameters`]'s): `w1`, `b1`,
/// `w_mid`, `b_mid`, `w2`, `b2`.
fn tensors(n: &Net) -> [Vec<f32>; 6] {
    n.parameters().map(<[f32]>::to_vec)
}

/// Serializes nets to the file format.
pub fn encode(set: &WeightsSet) -> Vec<u8> {
    let tensors: Vec<Vec<f32>> = set.nets.iter().flat_map(|(_, n)| tensors(n)).collect();
    let body = bincode::serde::encode_to_vec(&tensors, config()).expect("vectors encode");
    let header = Header {
        version: VERSION,
        layout: set.layout.id(),
        nets: set
            .nets
            .iter()
            .map(|(name, n)| NetShape {
                name: name.clone(),
                inputs: n.inputs() as u32,
                hidden: n.hidden() as u32,
                hidden2: n.hidden2() as u32,
            })
            .collect(),
        checksum: Sha256::digest(&body).into(),
        provenance: set.provenance.clone(),
    };
    let mut out = MAGIC.to_vec();
    out.extend(bincode::serde::encode_to_vec(&header, config()).expect("header encodes"));
    out.extend(body);
    out
}

/// Reads and checks a weights file.
pub fn decode(bytes: &[u8]) -> Result<WeightsSet, WeightsError> {
    if bytes.len() < MAGIC.len() || bytes[..MAGIC.len()] != MAGIC {
        return Err(WeightsError::Magic);
    }
    let rest = &bytes[MAGIC.len()..];
    // The version leads the header, so an older or newer file is named as
    // such even when the rest of its header has changed shape.
    let (version, _): (u32, usize) = bincode::serde::decode_from_slice(rest, read_config())
        .map_err(|e| WeightsError::Decode {
            section: "header",
            reason: e.to_string(),
        })?;
    let header_error = |e: bincode::error::DecodeError| WeightsError::Decode {
        section: "header",
        reason: e.to_string(),
    };
    let (header, used): (Header, usize) = match version {
        1 => {
            let (h, used): (HeaderV1, usize) =
                bincode::serde::decode_from_slice(rest, read_config()).map_err(header_error)?;
            (h.into(), used)
        }
        VERSION => bincode::serde::decode_from_slice(rest, read_config()).map_err(header_error)?,
        _ => return Err(WeightsError::Version(version)),
    };
    // Version 1 stored no second-layer tensors.
    let per_net = if version == 1 { 4 } else { 6 };
    let layout = Layout::from_id(header.layout).ok_or(WeightsError::Layout(header.layout))?;
    let body = &rest[used..];
    if <[u8; 32]>::from(Sha256::digest(body)) != header.checksum {
        return Err(WeightsError::Checksum);
    }
    let (tensors, used): (Vec<Vec<f32>>, usize) =
        bincode::serde::decode_from_slice(body, read_config()).map_err(|e| {
            WeightsError::Decode {
                section: "tensors",
                reason: e.to_string(),
            }
        })?;
    if used != body.len() {
        return Err(WeightsError::Trailing(body.len() - used));
    }
    if tensors.len() != per_net * header.nets.len() {
        return Err(WeightsError::Shape(format!(
            "{} tensors for {} nets",
            tensors.len(),
            header.nets.len()
        )));
    }
    let mut nets = Vec::new();
    for (shape, t) in header.nets.iter().zip(tensors.chunks_exact(per_net)) {
        let name = &shape.name;
        let (i, h, h2) = (
            shape.inputs as usize,
            shape.hidden as usize,
            shape.hidden2 as usize,
        );
        // The pre-filter reads the board alone, whatever the layout (its
        // shape is checked where it is made, `prefilter::Prefilter::new`).
        if name != PREFILTER_NET && i != layout.inputs() {
            return Err(WeightsError::Shape(format!(
                "net {name:?} has {i} inputs, layout {} has {}",
                layout.id(),
                layout.inputs()
            )));
        }
        if h == 0 || h % BLOCK != 0 || h > MAX_HIDDEN {
            return Err(WeightsError::Shape(format!(
                "net {name:?} has {h} hidden units (need a multiple of {BLOCK} up to {MAX_HIDDEN})"
            )));
        }
        if h2 % BLOCK2 != 0 || h2 > MAX_HIDDEN2 {
            return Err(WeightsError::Shape(format!(
                "net {name:?} has {h2} second-layer units (need a multiple of {BLOCK2} up to {MAX_HIDDEN2})"
            )));
        }
        // Version 1's missing second-layer tensors are empty.
        let empty = Vec::new();
        let t: Vec<&Vec<f32>> = if per_net == 4 {
            vec![&t[0], &t[1], &empty, &empty, &t[2], &t[3]]
        } else {
            t.iter().collect()
        };
        let bad = |what: &str, len: usize, want: usize| {
            WeightsError::Shape(format!("net {name:?} {what} has {len} values, want {want}"))
        };
        let want = [i * h, h, h2 * h, h2, OUTPUTS * (h + h2), OUTPUTS];
        let names = ["w1", "b1", "w_mid", "b_mid", "w2", "b2"];
        for ((what, v), w) in names.iter().zip(&t).zip(want) {
            if v.len() != w {
                return Err(bad(what, v.len(), w));
            }
            if let Some(x) = v.iter().find(|x| !x.is_finite()) {
                return Err(WeightsError::Shape(format!(
                    "net {name:?} {what} holds a non-finite value {x}"
                )));
            }
        }
        nets.push((
            name.clone(),
            Net::from(Params {
                w1: Array2::from_shape_vec((i, h), t[0].clone()).expect("checked"),
                b1: Array1::from(t[1].clone()),
                w_mid: Array2::from_shape_vec((h2, h), t[2].clone()).expect("checked"),
                b_mid: Array1::from(t[3].clone()),
                w2: Array2::from_shape_vec((OUTPUTS, h + h2), t[4].clone()).expect("checked"),
                b2: Array1::from(t[5].clone()),
            }),
        ));
    }
    Ok(WeightsSet {
        layout,
        nets,
        provenance: header.provenance,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand_xoshiro::Xoshiro256PlusPlus;

    fn sample() -> WeightsSet {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(3);
        WeightsSet {
            layout: Layout::V2,
            nets: vec![
                (
                    "contact".into(),
                    Net::random(crate::evaluation::inputs::Layout::V2.inputs(), 32, &mut rng),
                ),
                (
                    "race".into(),
                    Net::random(crate::evaluation::inputs::Layout::V2.inputs(), 64, &mut rng),
                ),
            ],
            provenance: "test".into(),
        }
    }

    #[test]
    fn round_trips() {
        let set = sample();
        assert_eq!(decode(&encode(&set)).unwrap(), set);
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(4);
        let v3 = WeightsSet {
            layout: Layout::V3,
            nets: vec![(
                "contact".into(),
                Net::random(Layout::V3.inputs(), 32, &mut rng),
            )],
            provenance: String::new(),
        };
        assert_eq!(decode(&encode(&v3)).unwrap(), v3);
        // Nets that do not fit the layout they claim are refused.
        let wrong = WeightsSet {
            layout: Layout::V2,
            ..v3
        };
        assert!(matches!(
            decode(&encode(&wrong)),
            Err(WeightsError::Shape(_))
        ));
    }

    #[test]
    fn a_header_claiming_a_huge_length_is_refused_not_allocated() {
        // The version, the layout, no nets, a checksum, then provenance
        // text whose length field claims 2^61 bytes.
        let mut bytes = MAGIC.to_vec();
        bytes.extend(bincode::serde::encode_to_vec(VERSION, config()).unwrap());
        bytes.extend(bincode::serde::encode_to_vec(3u32, config()).unwrap());
        bytes.push(0);
        bytes.extend([0u8; 32]);
        bytes.push(253);
        bytes.extend((1u64 << 61).to_le_bytes());
        bytes.extend([0u8; 64]);
        let err = decode(&bytes).unwrap_err();
        assert!(
            matches!(
                err,
                WeightsError::Decode {
                    section: "header",
                    ..
                }
            ),
            "{err}"
        );
    }

    #[test]
    fn a_second_hidden_layer_round_trips() {
        use rand::Rng;
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(5);
        let mut set = sample();
        let h = set.nets[0].1.hidden();
        let net = set.nets[0].1.params_mut();
        net.w_mid = Array2::from_shape_fn((16, h), |_| rng.gen_range(-0.5..0.5));
        net.b_mid = Array1::zeros(16);
        net.w2 = Array2::from_shape_fn((OUTPUTS, h + 16), |_| rng.gen_range(-0.5..0.5));
        assert_eq!(decode(&encode(&set)).unwrap(), set);
        // A second layer of a size the kernels do not take is refused.
        let net = set.nets[0].1.params_mut();
        net.w_mid = Array2::zeros((12, h));
        net.b_mid = Array1::zeros(12);
        net.w2 = Array2::zeros((OUTPUTS, h + 12));
        let err = decode(&encode(&set)).unwrap_err().to_string();
        assert!(err.contains("12 second-layer units"), "{err}");
    }

    /// A file in the version-1 format (one hidden layer, four tensors per
    /// net), written field by field as that format had it.
    fn version_1(set: &WeightsSet) -> Vec<u8> {
        // Version 1 had no second-layer tensors (`w_mid`, `b_mid`).
        let tensors: Vec<Vec<f32>> = set
            .nets
            .iter()
            .flat_map(|(_, n)| {
                let [w1, b1, _, _, w2, b2] = tensors(n);
                [w1, b1, w2, b2]
            })
            .collect();
        let body = bincode::serde::encode_to_vec(&tensors, config()).unwrap();
        let nets: Vec<(String, u32, u32)> = set
            .nets
            .iter()
            .map(|(name, n)| (name.clone(), n.inputs() as u32, n.hidden() as u32))
            .collect();
        let checksum: [u8; 32] = Sha256::digest(&body).into();
        let header = (
            1u32,
            set.layout.id(),
            nets,
            checksum,
            set.provenance.clone(),
        );
        let mut out = MAGIC.to_vec();
        out.extend(bincode::serde::encode_to_vec(&header, config()).unwrap());
        out.extend(body);
        out
    }

    #[test]
    fn version_1_files_are_still_read() {
        let set = sample();
        assert_eq!(decode(&version_1(&set)).unwrap(), set);
        let mut cut = version_1(&set);
        cut.truncate(cut.len() - 3);
        assert!(decode(&cut).is_err());
    }

    #[test]
    fn damage_is_named() {
        let bytes = encode(&sample());
        assert!(matches!(decode(b"hello"), Err(WeightsError::Magic)));
        assert!(matches!(decode(&bytes[..7]), Err(WeightsError::Magic)));
        assert!(matches!(
            decode(&bytes[..40]),
            Err(WeightsError::Decode { .. } | WeightsError::Checksum)
        ));
        assert!(matches!(
            decode(&bytes[..bytes.len() - 5]),
            Err(WeightsError::Checksum)
        ));
        let mut flipped = bytes.clone();
        let last = flipped.len() - 100;
        flipped[last] ^= 0x40;
        assert!(matches!(decode(&flipped), Err(WeightsError::Checksum)));
        let mut v3 = bytes.clone();
        v3[8] = 3;
        assert!(matches!(decode(&v3), Err(WeightsError::Version(3))));
        let mut extra = bytes;
        extra.push(0);
        assert!(decode(&extra).is_err());
    }
}
