package postgres

import (
	"encoding/json"
	"time"

	"github.com/askonce/askonce/internal/sqlstore"
)

// encoding is how PostgreSQL keeps the values SQL has no one type for
// (see sqlstore.Encoding): timestamptz, boolean, text[] and jsonb.
type encoding struct{}

func (encoding) Bool(b bool) any              { return b }
func (encoding) Time(t time.Time) any         { return t }
func (encoding) TimePtr(t *time.Time) any     { return timePtrArg(t) }
func (encoding) Lease(t time.Time) any        { return leaseArg(t) }
func (encoding) List(v []string) (any, error) { return listArg(v), nil }
func (encoding) JSON(b []byte) any            { return rawArg(b) }
func (encoding) ScanList(p *[]string) any     { return p }

// leaseArg stores a lease's end to the microsecond; none (the zero time)
// as 0001-01-01, the column's default.
func leaseArg(t time.Time) time.Time {
	if t.IsZero() {
		return time.Time{}
	}
	return micro(t)
}

// jobTable is every job column (sqlstore.JobTable); the static ones are
// kept in jobs_static.
var jobTable = sqlstore.JobTable(encoding{})

func columnsWhere(keep func(c *sqlstore.Column) bool) []*sqlstore.Column {
	return sqlstore.Where(jobTable, keep)
}

var (
	// jobsColumns are the columns of the jobs table, staticColumns those
	// of jobs_static (keyed by id), and updatedColumns those UpdateJob
	// overwrites with the change's values: the state (the result is
	// one) and the fixed ones of jobs (rewriting an unchanged value
	// costs PostgreSQL nothing more, the row is rewritten anyway).
	jobsColumns    = columnsWhere(func(c *sqlstore.Column) bool { return !c.Static })
	staticColumns  = columnsWhere(func(c *sqlstore.Column) bool { return c.Static })
	updatedColumns = columnsWhere(func(c *sqlstore.Column) bool {
		return !c.Static && c.Kind != sqlstore.Key && c.Kind != sqlstore.Stored
	})
)

// rawArg stores raw JSON; empty is NULL.
func rawArg(b json.RawMessage) any {
	if len(b) == 0 {
		return nil
	}
	return b
}
