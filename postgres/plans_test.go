package postgres

import (
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// Every statement that finds one job by its id reads it through the
// primary key, in the generic plan its prepared statement keeps, on a new
// schema without statistics (a new database with autovacuum off): never
// through an index that starts with tenant_id (jobs_by_tenant,
// jobs_by_tenant_session), whose scan reads every job of the tenant.
func TestJobByIDSeeksThePrimaryKey(t *testing.T) {
	s := openTest(t, Options{})
	stmts := map[string]string{
		"GetJob":     selectJobSQL,
		"JobExists":  jobExistsSQL,
		"JobByLink":  own.JobByLink.String(),
		"UpdateJob":  updateJobSQL,
		"AddAttempt": addUsageSQL,
	}
	param := regexp.MustCompile(`\$(\d+)`)
	for name, q := range stmts {
		n := 0
		for _, m := range param.FindAllStringSubmatch(q, -1) {
			n = max(n, must(strconv.Atoi(m[1])))
		}
		args := make([]any, n) // NULL: a generic plan does not read them
		plan := explain(t, s, q, args...)
		if !strings.Contains(plan, "using jobs_pkey on jobs") || strings.Contains(plan, "jobs_by_tenant") {
			t.Errorf("%s does not find the job by its primary key:\n%s", name, plan)
		}
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}
