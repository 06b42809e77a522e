//! Lenient deserializers for arguments that models and schema converters commonly mangle.
//!
//! Gemini, once a converter has degraded a schema, sends `files: ["a.md"]` instead of
//! `files: [{"path": "a.md"}]`, stringified arrays, or integers as strings. Accepting these costs
//! nothing and saves the model a failed call and a retry.

use fs_mcp_text::{Keep, Marker, thousands, truncate};
use serde::Deserialize;
use serde::de::{self, Deserializer};
use serde_json::Value;

/// An optional integer given as a number, an integral float, or a numeric string; `null` is `None`.
pub fn opt_i64<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<i64>, D::Error> {
    let value = Option::<Value>::deserialize(deserializer)?;
    match value {
        None | Some(Value::Null) => Ok(None),
        Some(v) => integer(&v)
            .map(Some)
            .ok_or_else(|| de::Error::custom(format!("expected an integer, got {}", short(&v)))),
    }
}

/// A boolean given as `true`/`false` or as the strings `"true"`/`"false"`; `null` is `false`.
pub fn bool_or_default<'de, D: Deserializer<'de>>(deserializer: D) -> Result<bool, D::Error> {
    let value = Option::<Value>::deserialize(deserializer)?;
    match value {
        None | Some(Value::Null) => Ok(false),
        Some(Value::Bool(b)) => Ok(b),
        Some(Value::String(s)) if s.eq_ignore_ascii_case("true") => Ok(true),
        Some(Value::String(s)) if s.eq_ignore_ascii_case("false") => Ok(false),
        Some(v) => Err(de::Error::custom(format!(
            "expected true or false, got {}",
            short(&v)
        ))),
    }
}

fn integer(value: &Value) -> Option<i64> {
    match value {
        Value::Number(n) => n.as_i64().or_else(|| {
            n.as_f64()
                .filter(|f| f.fract() == 0.0 && f.abs() < 9.0e15)
                .map(|f| f as i64)
        }),
        Value::String(s) => s.trim().parse::<i64>().ok(),
        _ => None,
    }
}

/// A list that a model may also send as one item, or as a JSON string holding the list.
pub fn list_of<T: de::DeserializeOwned>(value: Value) -> Result<Vec<T>, String> {
    list_of_at_most(value, usize::MAX)
}

/// [`list_of`] refusing, before reading any item, a list longer than `max`: a call's cost stays
/// bounded by what it can answer, whatever the client sends.
pub fn list_of_at_most<T: de::DeserializeOwned>(
    value: Value,
    max: usize,
) -> Result<Vec<T>, String> {
    match value {
        Value::Array(items) if items.len() > max => Err(format!(
            "{} items, but this list takes at most {} per call; send the rest in further calls",
            thousands(items.len() as u64),
            thousands(max as u64)
        )),
        Value::Array(items) => items
            .into_iter()
            .enumerate()
            .map(|(i, item)| serde_json::from_value(item).map_err(|e| format!("item {i}: {e}")))
            .collect(),
        Value::String(text) if text.trim_start().starts_with('[') => {
            let parsed: Value = serde_json::from_str(&text)
                .map_err(|e| format!("a string that looks like a JSON list but is not: {e}"))?;
            list_of_at_most(parsed, max)
        }
        // One item as a JSON string (`"{\"path\": \"a.md\"}"`); a string that is not such an
        // object (a file named `{a}.txt`) stays the string it is.
        Value::String(text)
            if let Ok(Value::Object(object)) = serde_json::from_str::<Value>(&text)
                && let Ok(item) = serde_json::from_value::<T>(Value::Object(object)) =>
        {
            Ok(vec![item])
        }
        Value::Null => Ok(Vec::new()),
        single => serde_json::from_value(single)
            .map(|item| vec![item])
            .map_err(|e| e.to_string()),
    }
}

/// An optional list read as [`list_of_at_most`]; absent or `null` is `None`. An error names
/// the parameter (`name`).
pub fn opt_list_at_most<'de, D: Deserializer<'de>, T: de::DeserializeOwned>(
    deserializer: D,
    max: usize,
    name: &str,
) -> Result<Option<Vec<T>>, D::Error> {
    match Option::<Value>::deserialize(deserializer)? {
        None | Some(Value::Null) => Ok(None),
        Some(v) => list_of_at_most(v, max)
            .map(Some)
            .map_err(|e| de::Error::custom(format!("{name}: {e}"))),
    }
}

/// A compact rendering of a value for error messages.
pub fn short(value: &Value) -> String {
    let text = value.to_string();
    truncate(&text, Keep::Chars(60), Marker::Ellipsis).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[derive(Debug, Deserialize)]
    struct Params {
        #[serde(default, deserialize_with = "at_most_three")]
        names: Option<Vec<String>>,
    }

    fn at_most_three<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Vec<String>>, D::Error> {
        opt_list_at_most(d, 3, "names")
    }

    #[test]
    fn a_list_past_its_cap_is_refused_whole_naming_the_parameter_and_the_cap() {
        let p: Params = serde_json::from_value(json!({"names": ["a", "b", "c"]})).unwrap();
        assert_eq!(p.names.unwrap().len(), 3);
        let p: Params = serde_json::from_value(json!({"names": "a"})).unwrap();
        assert_eq!(p.names.unwrap(), ["a"]);
        let p: Params = serde_json::from_value(json!({"names": null})).unwrap();
        assert!(p.names.is_none());
        for over in [
            json!(["a", "b", "c", "d"]),
            json!("[\"a\", \"b\", \"c\", \"d\"]"),
        ] {
            let e = serde_json::from_value::<Params>(json!({ "names": over })).unwrap_err();
            assert_eq!(
                e.to_string(),
                "names: 4 items, but this list takes at most 3 per call; send the rest in further calls"
            );
        }
        // The count is checked before any item is read: a wrong item past the cap is not what
        // the error is about.
        let e = serde_json::from_value::<Params>(json!({"names": ["a", "b", "c", 4]})).unwrap_err();
        assert!(e.to_string().contains("at most 3"), "{e}");
    }

    #[test]
    fn one_item_may_come_as_a_json_string_holding_the_object() {
        #[derive(Debug, Deserialize, PartialEq)]
        struct Item {
            path: String,
        }
        let items: Vec<Item> = list_of(json!("{\"path\": \"README.md\"}")).unwrap();
        assert_eq!(
            items,
            [Item {
                path: "README.md".into()
            }]
        );
        // A string that is no such object stays a string: a file may be named `{a}.txt`.
        let names: Vec<String> = list_of(json!("{a}.txt")).unwrap();
        assert_eq!(names, ["{a}.txt"]);
        let names: Vec<String> = list_of(json!("{\"path\": \"x\"}")).unwrap();
        assert_eq!(names, ["{\"path\": \"x\"}"]);
    }
}
