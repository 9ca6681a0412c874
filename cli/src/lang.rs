//! The game's words in English, and with `--lang he` the Hebrew words
//! players use beside them (the words of the Hebrew rules pages `docs/RULES.md` draws on).

/// The language of reports.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum, Default)]
pub enum Lang {
    /// English terms only.
    #[default]
    En,
    /// English terms with the Hebrew words beside them.
    He,
}

impl Lang {
    fn with(self, en: &str, he: &str) -> String {
        match self {
            Lang::En => en.to_string(),
            Lang::He => format!("{en} ({he})"),
        }
    }

    /// A win of one kind: "single game", "gammon", "backgammon".
    pub fn win(self, kind: sheshbesh_engine::rules::scoring::WinKind) -> String {
        use sheshbesh_engine::rules::scoring::WinKind::*;
        match kind {
            Single => "single game".to_string(),
            Gammon => self.with("gammon", "mars, מארס"),
            Backgammon => self.with("backgammon", "Turkish mars, מארס טורקי"),
        }
    }

    /// A roll, with its name where it has one (6-5 is shesh-besh; 6-6 and
    /// 5-5 have Arabic and Turkish names).
    pub fn roll(self, d: sheshbesh_engine::Dice) -> String {
        let plain = d.to_string();
        if self == Lang::En {
            return plain;
        }
        match (d.high(), d.low()) {
            (6, 5) => format!("{plain} (shesh-besh, שש-בש)"),
            (6, 6) => format!("{plain} (dush, דוּש; düşeş)"),
            (5, 5) => format!("{plain} (dabash, דַבַּש; dübeş)"),
            (a, b) if a == b => format!("{plain} (a double, דאבל)"),
            _ => plain,
        }
    }

    /// The call when a checker is hit.
    pub fn hit(self) -> String {
        self.with("hit", "akhalti lekha, אכלתי לך")
    }

    /// Offering the cube.
    pub fn double(self) -> String {
        self.with("doubles", "הכפלה")
    }

    /// Accepting the cube.
    pub fn take(self) -> String {
        self.with("takes", "קבלה")
    }

    /// Refusing the cube.
    pub fn drop(self) -> String {
        self.with("passes", "ויתור")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sheshbesh_engine::rules::scoring::WinKind;
    use sheshbesh_engine::Dice;

    #[test]
    fn hebrew_words_beside_english() {
        assert_eq!(Lang::En.win(WinKind::Gammon), "gammon");
        assert_eq!(Lang::He.win(WinKind::Gammon), "gammon (mars, מארס)");
        assert!(Lang::He.win(WinKind::Backgammon).contains("מארס טורקי"));
        assert!(Lang::He.roll(Dice::new(6, 6).unwrap()).contains("dush"));
        assert!(Lang::He.roll(Dice::new(5, 5).unwrap()).contains("dabash"));
        assert!(Lang::He
            .roll(Dice::new(6, 5).unwrap())
            .contains("shesh-besh"));
        assert_eq!(Lang::He.roll(Dice::new(3, 1).unwrap()), "31");
        assert_eq!(Lang::En.roll(Dice::new(6, 6).unwrap()), "66");
    }
}
