// Package sqlstore is the SQL the two stores, sqlite and postgres, share,
// written once: the table of job columns and the scanner of a job row,
// the list query and its cursor, the statements both run (Stmt, written
// in $n placeholders and rendered ? for SQLite), and Store, the methods
// both stores run alike (the reads of askonce.Store, forget, lead,
// messages, push configs, the Idempotency-Key records) over a Conn each
// store implements on its driver. A query is one statement and one
// method of Store, taking the askonce parameters (HistoryQuery,
// LeaseQuery, ...): adding one touches this package only, as each
// store's Conn prepares a Stmt by itself (SQLite's writer all of Shared
// at open, its readers on first use; pgx by its statement cache). Each
// store keeps its driver, how it runs a write (SQLite's group commit,
// PostgreSQL's batches), its dialect's differences (Encoding: how it
// keeps times, booleans, lists and JSON; its Own statements) and its
// migrations. storetest proves both behave alike.
package sqlstore

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// Scanner is a row of either driver: *sql.Row, *sql.Rows, pgx.Row.
type Scanner interface{ Scan(dest ...any) error }

// Placeholders is how a dialect writes the nth value of a statement.
type Placeholders byte

const (
	// Question is SQLite's ?1, ?2, ...
	Question Placeholders = '?'
	// Dollar is PostgreSQL's $1, $2, ...
	Dollar Placeholders = '$'
)

// Param is the nth (from 1) placeholder.
func (p Placeholders) Param(n int) string { return string(p) + strconv.Itoa(n) }

// Next is the nth placeholder of a statement whose placeholders come in
// order, each once: SQLite's is a bare ?, which its driver binds without
// reading the parameter's name (a string it allocates for ?n).
func (p Placeholders) Next(n int) string {
	if p == Question {
		return "?"
	}
	return p.Param(n)
}

// Params is "p(1), p(2), ..." for n values, the whole statement's.
func (p Placeholders) Params(n int) string {
	parts := make([]string, n)
	for i := range parts {
		parts[i] = p.Next(i + 1)
	}
	return strings.Join(parts, ", ")
}

// dollar is a $n placeholder.
var dollar = regexp.MustCompile(`\$[0-9]+`)

// Rebind returns q, written with $1, $2, ..., in p's placeholders: Next's
// when they come in order, each once, else Param's. The statements hold
// no '$' but their placeholders'.
func (p Placeholders) Rebind(q string) string {
	if p == Dollar {
		return q
	}
	n := 0
	inOrder := true
	for _, m := range dollar.FindAllString(q, -1) {
		n++
		inOrder = inOrder && m == "$"+strconv.Itoa(n)
	}
	if inOrder {
		return dollar.ReplaceAllString(q, "?")
	}
	return strings.ReplaceAll(q, "$", string(p))
}

// Assign is "a = p(from), b = p(from+1), ..." for cols.
func (p Placeholders) Assign(cols []*Column, from int) string {
	parts := make([]string, len(cols))
	for i, c := range cols {
		parts[i] = fmt.Sprintf("%s = %s", c.Name, p.Param(from+i))
	}
	return strings.Join(parts, ", ")
}
