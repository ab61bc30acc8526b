//! `docs/errors.md` tables every code with the exit code keeper ends with; the table and the
//! codes agree.

use filekeeper::Code;

#[test]
fn the_error_table_matches_the_codes() {
    let doc = include_str!("../../../docs/errors.md");
    let rows: Vec<(String, i32)> = doc
        .lines()
        .filter_map(|line| {
            let cells: Vec<&str> = line.split('|').map(str::trim).collect();
            let code = cells.get(1)?.strip_prefix('`')?.strip_suffix('`')?;
            let exit = cells.get(2)?.parse().ok()?;
            Some((code.to_owned(), exit))
        })
        .collect();
    let expected: Vec<(String, i32)> = Code::ALL
        .iter()
        .map(|c| (c.as_str().to_owned(), c.exit_code()))
        .collect();
    assert_eq!(rows, expected);
}
