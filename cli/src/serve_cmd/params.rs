//! A request's query parameters, read strictly: a parameter the call does
//! not take, or one given twice, is refused rather than ignored, and each
//! bad value is named in the words the command line uses.

use std::ops::RangeInclusive;
use std::str::FromStr;

use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde_json::json;
use sheshbesh_engine::cube::decision::PlayEquity;

use crate::console::Home;

/// A refused request: its status and the one line that says why, sent
/// as `{"error": LINE}`.
#[derive(Debug)]
pub struct ApiError {
    status: StatusCode,
    message: String,
}

impl ApiError {
    pub fn new(status: StatusCode, message: String) -> ApiError {
        ApiError { status, message }
    }

    /// Bad input: a 400 with the command's own message.
    pub fn bad(e: anyhow::Error) -> ApiError {
        ApiError::new(StatusCode::BAD_REQUEST, format!("{e:#}"))
    }

    /// Bad input in words of the server's own.
    pub fn said(message: String) -> ApiError {
        ApiError::new(StatusCode::BAD_REQUEST, message)
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        (self.status, Json(json!({ "error": self.message }))).into_response()
    }
}

/// The parameters of one call.
#[derive(Debug)]
pub struct Params {
    pairs: Vec<(String, String)>,
}

impl Params {
    /// `pairs` checked against the names the call takes.
    pub fn new(pairs: Vec<(String, String)>, takes: &[&str]) -> Result<Params, ApiError> {
        for (i, (name, _)) in pairs.iter().enumerate() {
            if !takes.contains(&name.as_str()) {
                return Err(ApiError::said(format!(
                    "unknown parameter \"{name}\": this call takes {}",
                    takes.join(", ")
                )));
            }
            if pairs[..i].iter().any(|(n, _)| n == name) {
                return Err(ApiError::said(format!("parameter \"{name}\" given twice")));
            }
        }
        Ok(Params { pairs })
    }

    /// The value of `name`, if given.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.pairs
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    /// The value of `name`, which the call needs.
    pub fn required(&self, name: &str) -> Result<&str, ApiError> {
        self.get(name)
            .ok_or_else(|| ApiError::said(format!("missing parameter \"{name}\"")))
    }

    /// `ply` (default 0), as `--ply` takes it.
    pub fn ply(&self) -> Result<u32, ApiError> {
        match self.get("ply") {
            None => Ok(0),
            Some(v) => crate::position_cmd::ply_arg(v)
                .map_err(|why| ApiError::said(format!("bad ply \"{v}\": {why}"))),
        }
    }

    /// A yes-or-no parameter: absent, `0` or `false` is no; `1`, `true`
    /// or given empty (`?cubeless`) is yes.
    pub fn flag(&self, name: &str) -> Result<bool, ApiError> {
        match self.get(name) {
            None | Some("0") | Some("false") => Ok(false),
            Some("") | Some("1") | Some("true") => Ok(true),
            Some(v) => Err(ApiError::said(format!(
                "bad {name} \"{v}\": give 1 or 0 (true or false)"
            ))),
        }
    }

    /// The checker-play equity `cubeless` asks for (cubeful unless given).
    pub fn play_equity(&self) -> Result<PlayEquity, ApiError> {
        Ok(if self.flag("cubeless")? {
            PlayEquity::Cubeless
        } else {
            PlayEquity::Cubeful
        })
    }

    /// One of a command-line option's words (`home` takes `left` or
    /// `right`, as `play --home` does), `default` when absent.
    pub fn choice<T: clap::ValueEnum>(&self, name: &str, default: T) -> Result<T, ApiError> {
        let Some(v) = self.get(name) else {
            return Ok(default);
        };
        T::from_str(v, false).map_err(|_| {
            let words: Vec<String> = T::value_variants()
                .iter()
                .filter_map(|t| t.to_possible_value())
                .map(|p| p.get_name().to_string())
                .collect();
            ApiError::said(format!("bad {name} \"{v}\": give {}", words.join(" or ")))
        })
    }

    /// Whether `home` asks for the home board on the left.
    pub fn home_left(&self) -> Result<bool, ApiError> {
        Ok(self.choice("home", Home::Right)? == Home::Left)
    }

    /// A whole number in `range`, `default` when absent.
    pub fn number<T>(&self, name: &str, default: T, range: RangeInclusive<T>) -> Result<T, ApiError>
    where
        T: FromStr + PartialOrd + std::fmt::Display + Copy,
    {
        Ok(self.optional_number(name, range)?.unwrap_or(default))
    }

    /// A whole number in `range`, if given.
    pub fn optional_number<T>(
        &self,
        name: &str,
        range: RangeInclusive<T>,
    ) -> Result<Option<T>, ApiError>
    where
        T: FromStr + PartialOrd + std::fmt::Display + Copy,
    {
        let Some(v) = self.get(name) else {
            return Ok(None);
        };
        match v.parse::<T>() {
            Ok(n) if range.contains(&n) => Ok(Some(n)),
            _ => Err(ApiError::said(format!(
                "bad {name} \"{v}\": give {} to {}",
                range.start(),
                range.end()
            ))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params(pairs: &[(&str, &str)], takes: &[&str]) -> Result<Params, ApiError> {
        let pairs = pairs
            .iter()
            .map(|(n, v)| (n.to_string(), v.to_string()))
            .collect();
        Params::new(pairs, takes)
    }

    #[test]
    fn unknown_twice_given_and_missing_parameters_are_named() {
        let e = params(&[("posiiton", "start")], &["position"]).unwrap_err();
        assert_eq!(
            e.message,
            "unknown parameter \"posiiton\": this call takes position"
        );
        let e = params(&[("ply", "1"), ("ply", "2")], &["ply"]).unwrap_err();
        assert_eq!(e.message, "parameter \"ply\" given twice");
        let p = params(&[], &["position"]).unwrap();
        assert_eq!(
            p.required("position").unwrap_err().message,
            "missing parameter \"position\""
        );
    }

    #[test]
    fn values_are_read_as_the_command_line_reads_them() {
        let p = params(
            &[("ply", "9"), ("cubeless", ""), ("trials", "0")],
            &["ply", "cubeless", "trials"],
        )
        .unwrap();
        assert_eq!(p.ply().unwrap_err().message, "bad ply \"9\": give 0 to 4");
        assert!(p.flag("cubeless").unwrap());
        assert!(!p.flag("cubeful").unwrap());
        let e = p.number("trials", 1296u32, 1..=1_000_000).unwrap_err();
        assert_eq!(e.message, "bad trials \"0\": give 1 to 1000000");
        assert_eq!(p.number("seed", 1u64, 0..=9).unwrap(), 1);
        let e = params(&[("cubeless", "yes")], &["cubeless"])
            .unwrap()
            .flag("cubeless");
        assert_eq!(
            e.unwrap_err().message,
            "bad cubeless \"yes\": give 1 or 0 (true or false)"
        );
        let home = |v: &str| params(&[("home", v)], &["home"]).unwrap().home_left();
        assert!(home("left").unwrap() && !home("right").unwrap());
        assert_eq!(
            home("up").unwrap_err().message,
            "bad home \"up\": give right or left"
        );
    }
}
