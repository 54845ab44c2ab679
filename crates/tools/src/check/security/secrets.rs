//! Secrets by their shapes: the prefixes providers give their keys and tokens, a
//! private key's PEM armour, a JWT's three parts. A finding names the kind and shows
//! the first characters only (the rest masked): a report must not spread what it
//! found. A shape can misfire on a made-up example or a test fixture.

/// One shape: a name, a literal prefix, and what must follow it.
struct Shape {
    /// What it is, for the message.
    kind: &'static str,
    /// Its literal start.
    prefix: &'static str,
    /// How many characters of `alphabet` must follow, at least.
    min: usize,
    /// Which characters may follow.
    alphabet: fn(char) -> bool,
}

fn upper_digit(c: char) -> bool {
    c.is_ascii_uppercase() || c.is_ascii_digit()
}
fn alnum(c: char) -> bool {
    c.is_ascii_alphanumeric()
}
fn word(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == '-'
}
fn pem(c: char) -> bool {
    c.is_ascii_uppercase() || c == ' '
}

const SHAPES: &[Shape] = &[
    Shape {
        kind: "an AWS access key id",
        prefix: "AKIA",
        min: 16,
        alphabet: upper_digit,
    },
    Shape {
        kind: "a GitHub token",
        prefix: "ghp_",
        min: 36,
        alphabet: alnum,
    },
    Shape {
        kind: "a GitHub token",
        prefix: "gho_",
        min: 36,
        alphabet: alnum,
    },
    Shape {
        kind: "a GitHub token",
        prefix: "ghs_",
        min: 36,
        alphabet: alnum,
    },
    Shape {
        kind: "a GitHub token",
        prefix: "ghu_",
        min: 36,
        alphabet: alnum,
    },
    Shape {
        kind: "a GitHub token",
        prefix: "github_pat_",
        min: 22,
        alphabet: word,
    },
    Shape {
        kind: "a Slack token",
        prefix: "xoxb-",
        min: 10,
        alphabet: word,
    },
    Shape {
        kind: "a Slack token",
        prefix: "xoxp-",
        min: 10,
        alphabet: word,
    },
    Shape {
        kind: "an Anthropic API key",
        prefix: "sk-ant-",
        min: 20,
        alphabet: word,
    },
    Shape {
        kind: "an OpenAI-style API key",
        prefix: "sk-",
        min: 32,
        alphabet: word,
    },
    Shape {
        kind: "a Google API key",
        prefix: "AIza",
        min: 35,
        alphabet: word,
    },
    Shape {
        kind: "a private key",
        prefix: "-----BEGIN ",
        min: 11,
        alphabet: pem,
    },
];

/// The first secret-shaped run in `text`: its kind and a masked quote (its first
/// eight characters, then its length).
pub fn find(text: &str) -> Option<(&'static str, String)> {
    for shape in SHAPES {
        let mut from = 0;
        while let Some(i) = text[from..].find(shape.prefix) {
            let start = from + i;
            let rest = &text[start + shape.prefix.len()..];
            let run: usize = rest.chars().take_while(|c| (shape.alphabet)(*c)).count();
            let boundary = text[..start]
                .chars()
                .next_back()
                .is_none_or(|c| !c.is_ascii_alphanumeric());
            let pem_ok = shape.prefix != "-----BEGIN " || rest[..run].ends_with("PRIVATE KEY");
            if run >= shape.min && boundary && pem_ok {
                let whole = shape.prefix.len() + run;
                let shown: String = text[start..].chars().take(8).collect();
                return Some((shape.kind, format!("{shown}… ({whole} characters)")));
            }
            from = start + shape.prefix.len();
        }
    }
    jwt(text)
}

/// A JWT: `eyJ` (a JSON object's `{"` in base64url), three dot-separated parts.
fn jwt(text: &str) -> Option<(&'static str, String)> {
    let b64 = |c: char| c.is_ascii_alphanumeric() || c == '_' || c == '-';
    let mut from = 0;
    while let Some(i) = text[from..].find("eyJ") {
        let start = from + i;
        let run: Vec<&str> = text[start..]
            .split(|c: char| !(b64(c) || c == '.'))
            .next()
            .unwrap_or("")
            .split('.')
            .collect();
        if run.len() >= 3 && run[1].starts_with("eyJ") && run.iter().take(3).all(|p| p.len() >= 10)
        {
            let whole: usize = run.iter().take(3).map(|p| p.len()).sum::<usize>() + 2;
            return Some(("a JWT", format!("eyJ… ({whole} characters)")));
        }
        from = start + 3;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shapes_are_found_masked_and_look_alikes_are_not() {
        assert_eq!(
            find("key: AKIAIOSFODNN7EXAMPLE done"),
            Some(("an AWS access key id", "AKIAIOSF… (20 characters)".into()))
        );
        let gh = format!("token=ghp_{}", "a1".repeat(18));
        assert_eq!(find(&gh).map(|f| f.0), Some("a GitHub token"));
        assert_eq!(
            find("-----BEGIN OPENSSH PRIVATE KEY-----\nabc").map(|f| f.0),
            Some("a private key")
        );
        assert_eq!(
            find("-----BEGIN CERTIFICATE-----"),
            None,
            "a certificate is public"
        );
        assert_eq!(
            find("eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.abcdefghijklmn").map(|f| f.0),
            Some("a JWT")
        );
        assert_eq!(find("the task-list and sk-short"), None);
        assert_eq!(find("MASKAKIAIOSFODNN7EXAMPLE"), None, "inside a word");
        assert_eq!(find("The sum of 2 and 3 is 5"), None);
    }
}
