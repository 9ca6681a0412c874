//! The weights file: the one place that knows how nets are stored.
//!
//! # Format (version [`VERSION`])
//! 1. 8 bytes of magic, [`MAGIC`];
//! 2. a bincode-2 [`Header`]: format version, input-layout id, each net's
//!    name and layer sizes, the SHA-256 of the tensor section, and a free
//!    provenance text;
//! 3. the tensor section: bincode-2 `Vec<Vec<f32>>`, per net `w1` (inputs x
//!    hidden, row-major), `b1`, `w2` (5 x hidden), `b2`.
//!
//! Every field is checked on reading, so a wrong, truncated or corrupt file
//! is a [`WeightsError`] naming what is wrong, never a panic or a silently
//! different net.

use ndarray::{Array1, Array2};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use thiserror::Error;

use crate::inputs::Layout;
use crate::net::{Net, BLOCK, MAX_HIDDEN, OUTPUTS};

/// The first bytes of every weights file.
pub const MAGIC: [u8; 8] = *b"SHESHNET";
/// The format version this build reads and writes.
pub const VERSION: u32 = 1;

/// What went wrong reading a weights file.
#[derive(Debug, Error)]
pub enum WeightsError {
    /// Not a weights file at all.
    #[error("not a Sheshbesh weights file (bad magic bytes)")]
    Magic,
    /// Written by another format version.
    #[error("weights format version {0}, this build reads version {VERSION}")]
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
    /// Each net's name, inputs and hidden units, in file order.
    pub nets: Vec<(String, u32, u32)>,
    /// SHA-256 of the tensor section.
    pub checksum: [u8; 32],
    /// How the weights were made (free text, usually JSON).
    pub provenance: String,
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

/// Serializes nets to the file format.
pub fn encode(set: &WeightsSet) -> Vec<u8> {
    let tensors: Vec<Vec<f32>> = set
        .nets
        .iter()
        .flat_map(|(_, n)| {
            [
                n.w1.iter().copied().collect(),
                n.b1.to_vec(),
                n.w2.iter().copied().collect(),
                n.b2.to_vec(),
            ]
        })
        .collect();
    let body = bincode::serde::encode_to_vec(&tensors, config()).expect("vectors encode");
    let header = Header {
        version: VERSION,
        layout: set.layout.id(),
        nets: set
            .nets
            .iter()
            .map(|(name, n)| (name.clone(), n.inputs() as u32, n.hidden() as u32))
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
    let (version, _): (u32, usize) =
        bincode::serde::decode_from_slice(rest, config()).map_err(|e| WeightsError::Decode {
            section: "header",
            reason: e.to_string(),
        })?;
    if version != VERSION {
        return Err(WeightsError::Version(version));
    }
    let (header, used): (Header, usize) = bincode::serde::decode_from_slice(rest, config())
        .map_err(|e| WeightsError::Decode {
            section: "header",
            reason: e.to_string(),
        })?;
    let layout = Layout::from_id(header.layout).ok_or(WeightsError::Layout(header.layout))?;
    let body = &rest[used..];
    if <[u8; 32]>::from(Sha256::digest(body)) != header.checksum {
        return Err(WeightsError::Checksum);
    }
    let (tensors, used): (Vec<Vec<f32>>, usize) = bincode::serde::decode_from_slice(body, config())
        .map_err(|e| WeightsError::Decode {
            section: "tensors",
            reason: e.to_string(),
        })?;
    if used != body.len() {
        return Err(WeightsError::Trailing(body.len() - used));
    }
    if tensors.len() != 4 * header.nets.len() {
        return Err(WeightsError::Shape(format!(
            "{} tensors for {} nets",
            tensors.len(),
            header.nets.len()
        )));
    }
    let mut nets = Vec::new();
    for ((name, inputs, hidden), t) in header.nets.iter().zip(tensors.chunks_exact(4)) {
        let (i, h) = (*inputs as usize, *hidden as usize);
        if i != layout.inputs() {
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
        let bad = |what: &str, len: usize, want: usize| {
            WeightsError::Shape(format!("net {name:?} {what} has {len} values, want {want}"))
        };
        let want = [i * h, h, OUTPUTS * h, OUTPUTS];
        for ((what, v), w) in ["w1", "b1", "w2", "b2"].iter().zip(t).zip(want) {
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
            Net {
                w1: Array2::from_shape_vec((i, h), t[0].clone()).expect("checked"),
                b1: Array1::from(t[1].clone()),
                w2: Array2::from_shape_vec((OUTPUTS, h), t[2].clone()).expect("checked"),
                b2: Array1::from(t[3].clone()),
            },
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
            layout: Layout::DEFAULT,
            nets: vec![
                (
                    "contact".into(),
                    Net::random(crate::inputs::INPUTS, 32, &mut rng),
                ),
                (
                    "race".into(),
                    Net::random(crate::inputs::INPUTS, 64, &mut rng),
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
        let mut v2 = bytes.clone();
        v2[8] = 2;
        assert!(matches!(decode(&v2), Err(WeightsError::Version(2))));
        let mut extra = bytes;
        extra.push(0);
        assert!(decode(&extra).is_err());
    }
}
