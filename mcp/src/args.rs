//! Reading tool arguments: typed, strict (unknown names are refused), with INVALID_ARGUMENT
//! errors that name the argument.

use filekeeper::Result;
use filekeeper::plumbing::strict_json::StrictObject;
use serde_json::{Map, Value};

pub struct Args {
    map: Map<String, Value>,
}

impl Args {
    /// Takes the call's arguments, refusing names the tool does not declare.
    pub fn new(map: Option<Map<String, Value>>, known: &[&str]) -> Result<Args> {
        let map = map.unwrap_or_default();
        fields(&map).only(known)?;
        Ok(Args { map })
    }

    pub fn opt_str(&self, name: &str) -> Result<Option<String>> {
        Ok(fields(&self.map).string(name)?.map(str::to_owned))
    }

    pub fn str(&self, name: &str) -> Result<String> {
        self.opt_str(name)?
            .ok_or_else(|| fields(&self.map).missing(name))
    }

    pub fn opt_u64(&self, name: &str) -> Result<Option<u64>> {
        fields(&self.map).u64(name)
    }

    pub fn u64(&self, name: &str) -> Result<u64> {
        self.opt_u64(name)?
            .ok_or_else(|| fields(&self.map).missing(name))
    }

    pub fn flag(&self, name: &str) -> Result<bool> {
        Ok(fields(&self.map).flag(name)?.unwrap_or(false))
    }

    pub fn str_list(&self, name: &str) -> Result<Vec<String>> {
        let fields = fields(&self.map);
        let wrong = || fields.wrong(name, "an array of strings");
        match fields.get(name) {
            Some(Value::Array(items)) => items
                .iter()
                .map(|v| v.as_str().map(str::to_owned).ok_or_else(wrong))
                .collect(),
            None => Err(fields.missing(name)),
            Some(_) => Err(wrong()),
        }
    }
}

/// Tool arguments, read strictly; an error names the argument in its `argument` detail.
fn fields(map: &Map<String, Value>) -> StrictObject<'_> {
    StrictObject::new(map, "argument").naming_in("argument")
}
