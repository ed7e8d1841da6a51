//! Procedure texts generated from fuzz bytes by a small grammar over the
//! claim exercise's two tables, so that most inputs parse and reach SQLite:
//! transactions (BEGIN, BEGIN IMMEDIATE, COMMIT, ROLLBACK, savepoints),
//! SELECT / UPDATE / INSERT / DELETE with random clauses, `:parameters`
//! (bound, returned by an earlier step, or unknown), literals at the edges
//! (huge, negative, NULL, blobs, long texts), decisions (`@refuse`,
//! `@return`) and effects, and now and then a line of raw bytes.

use arbitrary::Unstructured;

/// The claim exercise's tables (`messages`, `lease_tokens`), with the
/// columns a statement may name; `nope` is a column that does not exist.
const TABLES: [(&str, &[&str]); 2] = [
    (
        "messages",
        &[
            "id",
            "body",
            "state",
            "claim_owner",
            "fencing_token",
            "rowid",
            "nope",
        ],
    ),
    ("lease_tokens", &["token", "kind", "rowid"]),
];

/// Parameters: the scenario's argument, the built-ins, names a RETURNING or
/// SELECT may bind (`token`, `state`, ...), and one nothing binds.
const PARAMETERS: [&str; 9] = [
    "message_id",
    "actor",
    "now",
    "process",
    "token",
    "state",
    "id",
    "fencing_token",
    "missing",
];

const FUNCTIONS: [&str; 12] = [
    "abs", "length", "coalesce", "max", "min", "lower", "typeof", "ifnull", "hex", "nullif",
    "random", "zeroblob",
];

const OPERATORS: [&str; 16] = [
    "+", "-", "*", "/", "%", "||", "=", "<>", "<", ">=", "AND", "OR", "IS", "IS NOT", "LIKE", "&",
];

const STATES: [&str; 5] = ["NEW", "CLAIMED", "DONE", "DEAD", "new"];

/// The procedure text `data` describes. Any bytes give some text; the
/// empty input gives an empty procedure.
pub fn procedure_text(data: &[u8]) -> String {
    let mut generator = Generator {
        u: Unstructured::new(data),
        out: String::new(),
    };
    let items = generator.int(0, 14);
    for _ in 0..items {
        if generator.u.is_empty() {
            break;
        }
        generator.item();
    }
    generator.out
}

struct Generator<'a> {
    u: Unstructured<'a>,
    out: String,
}

impl Generator<'_> {
    fn int(&mut self, low: u32, high: u32) -> u32 {
        self.u.int_in_range(low..=high).unwrap_or(low)
    }

    fn chance(&mut self, numerator: u8, denominator: u8) -> bool {
        self.u.ratio(numerator, denominator).unwrap_or(false)
    }

    fn pick<'s>(&mut self, options: &[&'s str]) -> &'s str {
        options[self.int(0, options.len() as u32 - 1) as usize]
    }

    fn push(&mut self, text: &str) {
        self.out.push_str(text);
    }

    fn table(&mut self) -> usize {
        self.int(0, TABLES.len() as u32 - 1) as usize
    }

    fn column(&mut self, table: usize) -> &'static str {
        let columns = TABLES[table].1;
        columns[self.int(0, columns.len() as u32 - 1) as usize]
    }

    /// One line or statement of the procedure.
    fn item(&mut self) {
        match self.int(0, 31) {
            0..=2 => {
                let begin = self.pick(&[
                    "BEGIN",
                    "BEGIN IMMEDIATE",
                    "BEGIN DEFERRED",
                    "BEGIN EXCLUSIVE",
                    "BEGIN TRANSACTION",
                ]);
                self.push(begin);
                self.push(";\n");
            }
            3..=5 => {
                let end = self.pick(&[
                    "COMMIT",
                    "END",
                    "ROLLBACK",
                    "SAVEPOINT s",
                    "RELEASE s",
                    "ROLLBACK TO s",
                ]);
                self.push(end);
                self.push(";\n");
            }
            6..=10 => self.select(),
            11..=15 => self.update(),
            16..=19 => self.insert(),
            20..=21 => self.delete(),
            22..=27 => {
                // A decision judges the statement before it.
                if !self.out.trim_end().ends_with(';') {
                    self.update();
                }
                self.decision();
            }
            28 => {
                let name = self.pick(&["invoke_provider", "notify", "x"]);
                self.push("-- @effect ");
                self.push(name);
                self.push(" ");
                self.names();
                self.push("\n");
            }
            29..=30 => {
                let comment = self.pick(&[
                    "-- a comment\n",
                    "/* a block comment */\n",
                    ";\n",
                    "\n",
                    "-- @frobnicate now\n",
                ]);
                self.push(comment);
            }
            _ => {
                // Raw text, for what the grammar does not say.
                let length = self.int(0, 40) as usize;
                let bytes = self.u.bytes(length).unwrap_or_default();
                let raw = String::from_utf8_lossy(bytes).into_owned();
                self.push(&raw);
                self.push("\n");
            }
        }
    }

    fn decision(&mut self) {
        let condition = match self.int(0, 4) {
            0 => "",
            1 => " unless changed",
            2 => " unless returned",
            3 => " if returned",
            _ => " if changed",
        };
        let count = self.pick(&["0", "1", "1", "2", "0", "1", "18446744073709551615", "x"]);
        if self.chance(2, 3) {
            let category = self.pick(&["not_claimable", "stale", "not_claimable", "9bad"]);
            self.push("-- @refuse ");
            self.push(category);
            if !condition.is_empty() {
                self.push(condition);
                self.push(" ");
                self.push(count);
            }
            self.push(": ");
            let reason = self.pick(&[
                "not claimable",
                "{message_id} is taken",
                "{token}{token}{state}",
                "{missing}",
                "{message_id",
                "",
            ]);
            self.push(reason);
        } else {
            self.push("-- @return ");
            self.names();
            if !condition.is_empty() {
                self.push(condition);
                self.push(" ");
                self.push(count);
            }
        }
        self.push("\n");
    }

    fn names(&mut self) {
        let count = self.int(0, 3);
        for i in 0..count {
            if i > 0 {
                self.push(", ");
            }
            let name = self.pick(&PARAMETERS);
            self.push(name);
        }
    }

    fn select(&mut self) {
        let table = self.table();
        self.push("SELECT ");
        if self.chance(1, 5) {
            self.push("DISTINCT ");
        }
        self.result_columns(table);
        self.push(" FROM ");
        self.push(TABLES[table].0);
        self.where_clause(table);
        if self.chance(1, 4) {
            self.push(" GROUP BY ");
            let column = self.column(table);
            self.push(column);
        }
        if self.chance(1, 3) {
            self.push(" ORDER BY ");
            let column = self.column(table);
            self.push(column);
            if self.chance(1, 2) {
                self.push(" DESC");
            }
        }
        if self.chance(1, 3) {
            self.push(" LIMIT ");
            self.expression(table, 1);
        }
        self.push(";\n");
    }

    fn update(&mut self) {
        let table = self.table();
        self.push("UPDATE ");
        if self.chance(1, 6) {
            self.push("OR IGNORE ");
        }
        self.push(TABLES[table].0);
        self.push(" SET ");
        let count = self.int(1, 3);
        for i in 0..count {
            if i > 0 {
                self.push(", ");
            }
            let column = self.column(table);
            self.push(column);
            self.push(" = ");
            self.expression(table, 2);
        }
        self.where_clause(table);
        self.returning(table);
        self.push(";\n");
    }

    fn insert(&mut self) {
        let table = self.table();
        self.push("INSERT ");
        let conflict = self.pick(&["", "OR IGNORE ", "OR REPLACE ", "OR ABORT "]);
        self.push(conflict);
        self.push("INTO ");
        self.push(TABLES[table].0);
        let columns = self.int(1, 3);
        self.push(" (");
        for i in 0..columns {
            if i > 0 {
                self.push(", ");
            }
            let column = self.column(table);
            self.push(column);
        }
        self.push(")");
        if self.chance(1, 5) {
            self.push(" SELECT ");
            for i in 0..columns {
                if i > 0 {
                    self.push(", ");
                }
                self.expression(table, 1);
            }
            self.push(" FROM ");
            self.push(TABLES[table].0);
        } else {
            let rows = self.int(1, 2);
            self.push(" VALUES ");
            for row in 0..rows {
                if row > 0 {
                    self.push(", ");
                }
                self.push("(");
                for i in 0..columns {
                    if i > 0 {
                        self.push(", ");
                    }
                    self.expression(table, 2);
                }
                self.push(")");
            }
        }
        if self.chance(1, 4) {
            self.push(" ON CONFLICT DO NOTHING");
        }
        self.returning(table);
        self.push(";\n");
    }

    fn delete(&mut self) {
        let table = self.table();
        self.push("DELETE FROM ");
        self.push(TABLES[table].0);
        self.where_clause(table);
        self.returning(table);
        self.push(";\n");
    }

    fn result_columns(&mut self, table: usize) {
        match self.int(0, 3) {
            0 => self.push("*"),
            1 => self.push("count(*)"),
            _ => {
                let count = self.int(1, 3);
                for i in 0..count {
                    if i > 0 {
                        self.push(", ");
                    }
                    self.expression(table, 2);
                    if self.chance(1, 2) {
                        self.push(" AS ");
                        let name = self.pick(&PARAMETERS);
                        self.push(name);
                    }
                }
            }
        }
    }

    fn where_clause(&mut self, table: usize) {
        if self.chance(3, 4) {
            self.push(" WHERE ");
            self.expression(table, 3);
        }
    }

    fn returning(&mut self, table: usize) {
        if self.chance(1, 3) {
            self.push(" RETURNING ");
            self.result_columns(table);
        }
    }

    fn expression(&mut self, table: usize, depth: u32) {
        let choice = if depth == 0 {
            self.int(0, 2)
        } else {
            self.int(0, 6)
        };
        match choice {
            0 => self.literal(),
            1 => {
                self.push(":");
                let name = self.pick(&PARAMETERS);
                self.push(name);
            }
            2 => {
                let column = self.column(table);
                self.push(column);
            }
            3 | 4 => {
                self.expression(table, depth - 1);
                self.push(" ");
                let operator = self.pick(&OPERATORS);
                self.push(operator);
                self.push(" ");
                self.expression(table, depth - 1);
            }
            5 => {
                let function = self.pick(&FUNCTIONS);
                self.push(function);
                self.push("(");
                let arguments = self.int(0, 2);
                for i in 0..arguments {
                    if i > 0 {
                        self.push(", ");
                    }
                    self.expression(table, depth - 1);
                }
                self.push(")");
            }
            _ => {
                let other = self.table();
                self.push("(SELECT ");
                let column = self.column(other);
                self.push(column);
                self.push(" FROM ");
                self.push(TABLES[other].0);
                if self.chance(1, 2) {
                    self.push(" WHERE ");
                    self.expression(other, depth - 1);
                }
                self.push(")");
            }
        }
    }

    fn literal(&mut self) {
        match self.int(0, 9) {
            0 => self.push("NULL"),
            1 => {
                let value = self.u.arbitrary::<i64>().unwrap_or(0);
                self.push(&value.to_string());
            }
            2 => {
                let edge = self.pick(&[
                    "9223372036854775807",
                    "-9223372036854775808",
                    "9223372036854775808",
                    "-1",
                    "0",
                    "1e308",
                    "-1e309",
                    "0.5",
                    "0x7fffffffffffffff",
                ]);
                self.push(edge);
            }
            3 => {
                let state = self.pick(&STATES);
                self.push("'");
                self.push(state);
                self.push("'");
            }
            4 => self.push("'msg-1'"),
            5 => {
                let value = self.int(0, 3);
                self.push(&value.to_string());
            }
            6 => {
                // A text from the input, quoted as SQL quotes it.
                let length = self.int(0, 24) as usize;
                let bytes = self.u.bytes(length).unwrap_or_default();
                let text: String = String::from_utf8_lossy(bytes)
                    .chars()
                    .filter(|c| !c.is_control())
                    .collect::<String>()
                    .replace('\'', "''");
                self.push("'");
                self.push(&text);
                self.push("'");
            }
            7 => {
                let length = self.int(0, 8) as usize;
                let bytes = self.u.bytes(length).unwrap_or_default().to_vec();
                self.push("X'");
                for byte in bytes {
                    self.push(&format!("{byte:02x}"));
                }
                self.push("'");
            }
            8 => {
                // A long text: past the engine's value limits when large.
                let length = self.pick(&["10", "1000", "70000", "1000000000"]);
                self.push("printf('%.*c', ");
                self.push(length);
                self.push(", 'x')");
            }
            _ => self.push("CURRENT_TIMESTAMP"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bytes_give_procedures_that_often_parse() {
        let mut parsed = 0;
        for seed in 0u32..200 {
            let data: Vec<u8> = (0..256u32)
                .map(|i| (i.wrapping_mul(2654435761).wrapping_add(seed * 7919) >> 13) as u8)
                .collect();
            let text = procedure_text(&data);
            if fencelab_core::Procedure::parse("claim", &text).is_ok() {
                parsed += 1;
            }
        }
        assert!(
            parsed > 50,
            "only {parsed} of 200 generated procedures parse"
        );
    }
}
