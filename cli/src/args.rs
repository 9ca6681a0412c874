//! Value parsers of numeric flags: each refuses what makes no sense for
//! its flag (NaN, infinities, zero or negatives) with the words a refused
//! value is reported with (`bad --FLAG "VALUE": why`).

/// A positive, finite number.
pub fn positive(s: &str) -> Result<f32, String> {
    match s.parse::<f32>() {
        Ok(v) if v.is_finite() && v > 0.0 => Ok(v),
        _ => Err("give a positive number".into()),
    }
}

/// [`positive`] in double precision.
pub fn positive_f64(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(v) if v.is_finite() && v > 0.0 => Ok(v),
        _ => Err("give a positive number".into()),
    }
}

/// A finite number of at least 0.
pub fn non_negative(s: &str) -> Result<f32, String> {
    match s.parse::<f32>() {
        Ok(v) if v.is_finite() && v >= 0.0 => Ok(v),
        _ => Err("give a number of at least 0".into()),
    }
}

/// A number from 0 to 1.
pub fn unit_interval(s: &str) -> Result<f32, String> {
    match s.parse::<f32>() {
        Ok(v) if (0.0..=1.0).contains(&v) => Ok(v),
        _ => Err("give a number from 0 to 1".into()),
    }
}

/// A count of at least 1.
pub fn count(s: &str) -> Result<u64, String> {
    match s.parse::<u64>() {
        Ok(n) if n >= 1 => Ok(n),
        _ => Err("give 1 or more".into()),
    }
}

/// [`count`] as a `usize`.
pub fn count_usize(s: &str) -> Result<usize, String> {
    count(s).and_then(|n| usize::try_from(n).map_err(|_| "too large".into()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nan_infinities_and_out_of_range_are_refused() {
        for bad in ["NaN", "nan", "inf", "-inf", "x", ""] {
            assert!(
                positive(bad).is_err() && positive_f64(bad).is_err(),
                "{bad}"
            );
            assert!(
                non_negative(bad).is_err() && unit_interval(bad).is_err(),
                "{bad}"
            );
        }
        assert!(positive("0").is_err() && positive("-1").is_err());
        assert_eq!(positive("0.5"), Ok(0.5));
        assert_eq!(non_negative("0"), Ok(0.0));
        assert!(non_negative("-0.1").is_err());
        assert_eq!(unit_interval("1"), Ok(1.0));
        assert!(unit_interval("1.01").is_err() && unit_interval("-0.01").is_err());
        assert_eq!(count("1"), Ok(1));
        assert!(count("0").is_err() && count("-1").is_err() && count_usize("0").is_err());
    }
}
