//! Reading tool arguments: typed, strict (unknown names are refused), with INVALID_ARGUMENT
//! errors that name the argument.

use filekeeper::{Error, Result};
use serde_json::{Map, Value};

pub struct Args {
    map: Map<String, Value>,
}

impl Args {
    /// Takes the call's arguments, refusing names the tool does not declare.
    pub fn new(map: Option<Map<String, Value>>, known: &[&str]) -> Result<Args> {
        let map = map.unwrap_or_default();
        if let Some(unknown) = map.keys().find(|k| !known.contains(&k.as_str())) {
            return Err(Error::invalid(format!("unknown argument {unknown:?}"))
                .with("argument", unknown.as_str()));
        }
        Ok(Args { map })
    }

    fn wrong(name: &str, what: &str) -> Error {
        Error::invalid(format!("argument {name} must be {what}")).with("argument", name)
    }

    pub fn opt_str(&self, name: &str) -> Result<Option<String>> {
        match self.map.get(name) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.clone())),
            Some(_) => Err(Self::wrong(name, "a string")),
        }
    }

    pub fn str(&self, name: &str) -> Result<String> {
        self.opt_str(name)?.ok_or_else(|| {
            Error::invalid(format!("argument {name} is required")).with("argument", name)
        })
    }

    pub fn opt_u64(&self, name: &str) -> Result<Option<u64>> {
        match self.map.get(name) {
            None | Some(Value::Null) => Ok(None),
            Some(v) => v
                .as_u64()
                .map(Some)
                .ok_or_else(|| Self::wrong(name, "a non-negative integer")),
        }
    }

    pub fn u64(&self, name: &str) -> Result<u64> {
        self.opt_u64(name)?.ok_or_else(|| {
            Error::invalid(format!("argument {name} is required")).with("argument", name)
        })
    }

    pub fn flag(&self, name: &str) -> Result<bool> {
        match self.map.get(name) {
            None | Some(Value::Null) => Ok(false),
            Some(Value::Bool(b)) => Ok(*b),
            Some(_) => Err(Self::wrong(name, "true or false")),
        }
    }

    pub fn str_list(&self, name: &str) -> Result<Vec<String>> {
        match self.map.get(name) {
            Some(Value::Array(items)) => items
                .iter()
                .map(|v| {
                    v.as_str()
                        .map(str::to_owned)
                        .ok_or_else(|| Self::wrong(name, "an array of strings"))
                })
                .collect(),
            None | Some(Value::Null) => {
                Err(Error::invalid(format!("argument {name} is required")).with("argument", name))
            }
            Some(_) => Err(Self::wrong(name, "an array of strings")),
        }
    }
}
