package sqlite

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/askonce/askonce"
	"github.com/askonce/askonce/internal/sqlstore"
)

// encoding is how SQLite keeps the values SQL has no one type for (see
// sqlstore.Encoding): times as INTEGER Unix nanoseconds, which round-trip
// exactly (the zero time, which has none, as NULL), booleans as 0 and 1,
// lists and JSON as TEXT.
type encoding struct{}

func (encoding) Bool(b bool) any              { return boolArg(b) }
func (encoding) Time(t time.Time) any         { return t.UnixNano() }
func (encoding) TimePtr(t *time.Time) any     { return timePtrArg(t) }
func (encoding) Lease(t time.Time) any        { return leaseArg(t) }
func (encoding) List(v []string) (any, error) { return stringsArg(v) }
func (encoding) JSON(b []byte) any            { return rawArg(b) }
func (encoding) ScanList(p *[]string) any     { return (*jsonList)(p) }

// leaseArg stores a lease's end as Unix nanoseconds, none as 0.
func leaseArg(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixNano()
}

// jobTable is every job column (sqlstore.JobTable). A static column is
// kept in job_log's kind 0 record, not jobs, under the name of the
// job_log column: the goal in data, the files in type, the spec schema in
// more, the candidates in candidates, the memory scope in memory.
var jobTable = func() []sqlstore.Column {
	t := sqlstore.JobTable(encoding{})
	logName := map[string]string{"goal": "data", "files": "type", "spec_schema": "more"}
	for i := range t {
		if n, ok := logName[t[i].Name]; ok {
			t[i].Name = n
		}
	}
	return t
}()

func columnsWhere(keep func(c *sqlstore.Column) bool) []*sqlstore.Column {
	return sqlstore.Where(jobTable, keep)
}

var (
	// jobsColumns are the columns of the jobs table, staticColumns those
	// of job_log's kind 0 record, stateColumns those UpdateJob
	// overwrites with their values, and fixedJobs and fixedStatic the
	// fixed ones of each table.
	jobsColumns   = columnsWhere(func(c *sqlstore.Column) bool { return !c.Static })
	staticColumns = columnsWhere(func(c *sqlstore.Column) bool { return c.Static })
	stateColumns  = columnsWhere(func(c *sqlstore.Column) bool { return c.Kind == sqlstore.State })
	fixedJobs     = columnsWhere(func(c *sqlstore.Column) bool { return c.Kind == sqlstore.Fixed && !c.Static })
	fixedStatic   = columnsWhere(func(c *sqlstore.Column) bool { return c.Kind == sqlstore.Fixed && c.Static })
)

// resultIndex is the place of the result among jobsColumns.
var resultIndex = slices.IndexFunc(jobsColumns, func(c *sqlstore.Column) bool { return c.Kind == sqlstore.Result })

// tableAlias is the alias of the column's table in jobFrom.
func tableAlias(c *sqlstore.Column) string {
	if c.Static {
		return "s."
	}
	return "j."
}

// readExpr is what jobColumns reads for c: the column, or for the result
// the attempt's raw output it refers to (jobFrom's r).
func readExpr(c *sqlstore.Column) string {
	if c.Kind == sqlstore.Result {
		return "COALESCE(j.result, r.data) AS "
	}
	return tableAlias(c)
}

// changedIf is the condition under which the fixed columns are rewritten,
// with the new values as ?1, ?2, ... in cols' order.
func changedIf(cols []*sqlstore.Column) string {
	var parts []string
	for i, c := range cols {
		parts = append(parts, fmt.Sprintf("%s IS NOT ?%d", c.Name, i+1))
	}
	return strings.Join(parts, " OR ")
}

// scanJob reads the jobColumns of one row.
func scanJob(row sqlstore.Scanner) (*askonce.Job, error) { return sqlstore.ScanJob(jobTable, row) }

// jsonList is the scan destination of a list kept as a JSON array
// (stringsArg); NULL is nil.
type jsonList []string

func (l *jsonList) Scan(src any) error {
	var b []byte
	switch v := src.(type) {
	case nil:
	case string:
		b = []byte(v)
	case []byte:
		b = v
	default:
		return fmt.Errorf("scan %T as a list", src)
	}
	*l = nil
	if len(b) == 0 {
		return nil
	}
	return json.Unmarshal(b, (*[]string)(l))
}
