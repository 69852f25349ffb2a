package sqlstore

import (
	"fmt"
	"time"
)

// unixZero is 0 Unix nanoseconds.
var unixZero = time.Unix(0, 0).UTC()

// Time is the scan destination of a time column: SQLite keeps Unix
// nanoseconds, PostgreSQL a timestamptz. It reads in UTC; NULL is the
// zero time.
type Time time.Time

// Scan implements sql.Scanner, which both drivers call.
func (t *Time) Scan(src any) error {
	switch v := src.(type) {
	case nil:
		*t = Time{}
	case int64:
		*t = Time(time.Unix(0, v).UTC())
	case time.Time:
		*t = Time(v.UTC())
	default:
		return fmt.Errorf("scan %T as a time", src)
	}
	return nil
}

// Ptr is t, nil when zero (NULL).
func (t Time) Ptr() *time.Time {
	if time.Time(t).IsZero() {
		return nil
	}
	u := time.Time(t)
	return &u
}
