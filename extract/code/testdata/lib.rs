//! A fixture crate.

use std::fmt;

/// The largest id.
pub const MAX_ID: u64 = 1 << 40;

static mut COUNTER: u64 = 0;

/// A user.
#[derive(Debug, Clone)]
pub struct User {
    pub id: u64,
    pub name: String,
}

/// Kinds of users.
pub enum Kind {
    Admin,
    Member,
}

/// Something that can be saved.
pub trait Save {
    /// Saves it.
    fn save(&self) -> Result<(), String>;

    fn describe(&self) -> String {
        String::new()
    }
}

impl User {
    /// Creates a user.
    pub fn new(id: u64, name: &str) -> Self {
        User { id, name: name.to_string() }
    }

    #[inline]
    pub fn name(&self) -> &str {
        &self.name
    }
}

impl fmt::Display for User {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.name)
    }
}

pub type Id = u64;

/// Helpers.
pub mod util {
    /// Doubles.
    pub fn double(x: u64) -> u64 {
        x * 2
    }
}

macro_rules! square {
    ($x:expr) => {
        $x * $x
    };
}
