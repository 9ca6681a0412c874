//! Base64 as gnubg writes its Position and Match IDs, and the one reader
//! of both: an ID's characters to the little-endian key they pack.

use base64::alphabet;
use base64::Engine;

use crate::rules::error::ParseError;
use base64::engine::general_purpose::{GeneralPurpose, GeneralPurposeConfig};
use base64::engine::DecodePaddingMode;

/// Standard alphabet, no padding, and lenient about unused trailing bits
/// as gnubg is.
pub const GNUBG_B64: GeneralPurpose = GeneralPurpose::new(
    &alphabet::STANDARD,
    GeneralPurposeConfig::new()
        .with_encode_padding(false)
        .with_decode_padding_mode(DecodePaddingMode::RequireNone)
        .with_decode_allow_trailing_bits(true),
);

/// The key packed in `id`, an ID of `chars` Base64 characters holding
/// `bytes` bytes (14 and 10 for a Position ID, 12 and 9 for a Match ID);
/// errors name `field` and the first bad character.
pub fn decode_key(
    field: &'static str,
    id: &str,
    chars: usize,
    bytes: usize,
) -> Result<u128, ParseError> {
    let err = |reason: String| ParseError::new(field, id, reason);
    let n = id.chars().count();
    if n != chars {
        return Err(err(format!("expected {chars} characters, got {n}")));
    }
    if let Some((i, c)) = id
        .chars()
        .enumerate()
        .find(|(_, c)| !(c.is_ascii_alphanumeric() || *c == '+' || *c == '/'))
    {
        return Err(err(format!("character {} '{c}' is not Base64", i + 1)));
    }
    let decoded = GNUBG_B64
        .decode(id)
        .map_err(|e| err(format!("not Base64: {e}")))?;
    let mut buf = [0u8; 16];
    buf[..bytes].copy_from_slice(&decoded[..bytes]);
    Ok(u128::from_le_bytes(buf))
}
