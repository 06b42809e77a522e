//! Argument names the schema does not know. A misspelt optional argument (`large_file_pasthrough`)
//! would otherwise be dropped silently and the model would never learn why nothing changed.

use serde_json::Value;

/// One argument name that no property of its object has.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownArgument {
    /// Where it is, e.g. `files[0].hed` (the name last).
    pub location: String,
    /// The unknown name itself, as the client sent it.
    pub name: String,
    /// The closest valid name, when one is close.
    pub suggestion: Option<String>,
    /// Every valid name at that level, sorted.
    pub valid: Vec<String>,
}

impl std::fmt::Display for UnknownArgument {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "unknown argument `{}`", self.location)?;
        if let Some(s) = &self.suggestion {
            write!(f, "; did you mean `{s}`?")?;
        } else {
            write!(f, ".")?;
        }
        write!(f, " Valid here: {}.", self.valid.join(", "))
    }
}

/// The argument names in `args` that the (served, reference-free) `schema` does not declare, at
/// every level: nested objects, array items, and the object variants of `anyOf`. Objects whose
/// schema lists no properties (free-form maps) accept any name. Values of another shape than the
/// schema's (a plain string where an object is expected, which coercion accepts) are not judged.
pub fn unknown_arguments(schema: &Value, args: &Value) -> Vec<UnknownArgument> {
    let mut out = Vec::new();
    walk(schema, args, "", &mut out);
    out
}

fn walk(schema: &Value, value: &Value, at: &str, out: &mut Vec<UnknownArgument>) {
    match value {
        Value::Object(map) => {
            let mut names: Vec<&str> = Vec::new();
            let mut variants: Vec<&Value> = vec![schema];
            if let Some(any) = schema.get("anyOf").and_then(Value::as_array) {
                variants.extend(any.iter());
            }
            for variant in &variants {
                if let Some(props) = variant.get("properties").and_then(Value::as_object) {
                    names.extend(props.keys().map(String::as_str));
                }
            }
            if names.is_empty() {
                return;
            }
            for (key, child) in map {
                let location = if at.is_empty() {
                    key.clone()
                } else {
                    format!("{at}.{key}")
                };
                let child_schema = variants
                    .iter()
                    .find_map(|v| v.get("properties").and_then(|p| p.get(key)));
                match child_schema {
                    Some(child_schema) => walk(child_schema, child, &location, out),
                    None => {
                        let mut valid: Vec<String> = names.iter().map(|s| s.to_string()).collect();
                        valid.sort();
                        valid.dedup();
                        out.push(UnknownArgument {
                            location,
                            name: key.clone(),
                            suggestion: closest(key, &valid),
                            valid,
                        });
                    }
                }
            }
        }
        Value::Array(items) => {
            let item_schema = schema.get("items").or_else(|| {
                schema
                    .get("anyOf")
                    .and_then(Value::as_array)
                    .and_then(|a| a.iter().find_map(|v| v.get("items")))
            });
            if let Some(item_schema) = item_schema {
                for (i, item) in items.iter().enumerate() {
                    walk(item_schema, item, &format!("{at}[{i}]"), out);
                }
            }
        }
        _ => {}
    }
}

/// The valid name nearest to `name` by edit distance, if it is near enough to be a typo.
fn closest(name: &str, valid: &[String]) -> Option<String> {
    let lower = name.to_ascii_lowercase();
    valid
        .iter()
        .map(|v| (edit_distance(&lower, &v.to_ascii_lowercase()), v))
        .filter(|(d, v)| *d <= (v.len() / 3).max(2))
        .min_by_key(|(d, _)| *d)
        .map(|(_, v)| v.clone())
}

fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let mut previous: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.iter().enumerate() {
        let mut current = vec![i + 1; b.len() + 1];
        for (j, cb) in b.iter().enumerate() {
            let substitution = previous[j] + usize::from(ca != cb);
            current[j + 1] = substitution.min(previous[j + 1] + 1).min(current[j] + 1);
        }
        previous = current;
    }
    previous[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn schema() -> Value {
        json!({"type": "object", "properties": {
            "files": {"type": "array", "items": {"type": "object", "properties": {
                "path": {"type": "string"}, "head": {"type": "integer"}}}},
            "large_file_passthrough": {"type": "boolean"},
            "options": {"type": "object"}
        }})
    }

    #[test]
    fn misspelt_names_are_found_at_every_level_with_a_suggestion() {
        let found = unknown_arguments(
            &schema(),
            &json!({"files": [{"path": "a"}, {"path": "b", "hed": 3}], "large_file_pasthrough": true}),
        );
        assert_eq!(found.len(), 2, "{found:?}");
        assert_eq!(found[0].location, "files[1].hed");
        assert_eq!(found[0].suggestion.as_deref(), Some("head"));
        assert_eq!(
            found[1].suggestion.as_deref(),
            Some("large_file_passthrough")
        );
        assert_eq!(
            found[1].to_string(),
            "unknown argument `large_file_pasthrough`; did you mean `large_file_passthrough`? Valid here: files, large_file_passthrough, options."
        );
    }

    #[test]
    fn lenient_shapes_and_free_form_objects_pass() {
        let ok = json!({"files": ["a.md", "[\"b\"]"], "options": {"anything": 1}});
        assert!(unknown_arguments(&schema(), &ok).is_empty());
        assert!(unknown_arguments(&schema(), &json!({"files": "[\"a.md\"]"})).is_empty());
        let far = unknown_arguments(&schema(), &json!({"zzz": 1}));
        assert_eq!(far[0].suggestion, None);
    }
}
