//! fencelab's PostgreSQL leaf: the layer the scenario interpreter drives
//! when a scenario runs on a real server. Each world is a database of its
//! own; each scenario process a [`Session`], whose statements run on a
//! thread of their own so that one waiting on a lock is seen waiting (as
//! PostgreSQL's isolationtester sees it) while the others move on.
//!
//! Native only, and never linked by the page or the worker. It knows
//! nothing of fencelab's engine: values in and out are
//! [`fencelab_model::value::Value`]s.

mod connection;
mod convert;
mod engine;
mod error;
mod positional;
mod server;
mod session;
pub mod testing;
mod world;

pub use connection::{DEADLOCK_TIMEOUT, STATEMENT_TIMEOUT};
pub use engine::{PgWorld, PgWorlds};
pub use error::{Error, ErrorKind, ParameterProblem, ServerError};
pub use positional::positional;
pub use server::Server;
pub use session::{Isolation, Reply, Session, Settled, settle_first};
pub use world::{Observer, ResetMethod, TableRows, WorldDb, observer_polls};

#[cfg(test)]
mod tests {
    /// The engine may run each world on a thread of its own (the CLI's
    /// `parallel::Cores` shares mutants out so).
    #[test]
    fn worlds_sessions_and_observers_can_move_between_threads() {
        fn movable<T: Send>() {}
        movable::<crate::Server>();
        movable::<crate::WorldDb>();
        movable::<crate::Session>();
        movable::<crate::Observer>();
        movable::<crate::Error>();
    }
}
