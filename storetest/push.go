package storetest

import (
	"testing"
	"time"

	"github.com/askonce/askonce"
)

var pushTests = []test{
	{"PutThenGetReturnsTheConfig", func(t *testing.T, s askonce.Store) {
		ps := pushStore(t, s)
		c := newPushConfig(NewTenant(), "p1")
		c.Token, c.AuthScheme, c.AuthCredentials = "tok", "Bearer", "secret"
		if err := ps.PutPushConfig(t.Context(), c); err != nil {
			t.Fatal(err)
		}
		got, err := ps.PushConfig(t.Context(), keyOf(c))
		if err != nil || !samePushConfig(got, c) {
			t.Fatalf("PushConfig = %+v, %v; want %+v", got, err, c)
		}
	}},
	{"PutOfTheSameIDReplacesIt", func(t *testing.T, s askonce.Store) {
		ps := pushStore(t, s)
		c := newPushConfig(NewTenant(), "p1")
		if err := ps.PutPushConfig(t.Context(), c); err != nil {
			t.Fatal(err)
		}
		c.URL, c.Token = "https://example.com/other", "new"
		if err := ps.PutPushConfig(t.Context(), c); err != nil {
			t.Fatal(err)
		}
		got, err := ps.PushConfigs(t.Context(), c.TenantID, c.JobID)
		if err != nil || len(got) != 1 || !samePushConfig(got[0], c) {
			t.Fatalf("PushConfigs = %+v, %v; want only %+v", got, err, c)
		}
	}},
	{"ListHasTheJobsConfigsOldestFirst", func(t *testing.T, s askonce.Store) {
		ps := pushStore(t, s)
		tenant := NewTenant()
		b := newPushConfig(tenant, "b")
		a := newPushConfig(tenant, "a")
		a.JobID = b.JobID
		a.CreatedAt = b.CreatedAt.Add(time.Second)
		other := newPushConfig(tenant, "c") // another job's
		for _, c := range []askonce.PushConfig{a, b, other} {
			if err := ps.PutPushConfig(t.Context(), c); err != nil {
				t.Fatal(err)
			}
		}
		got, err := ps.PushConfigs(t.Context(), tenant, b.JobID)
		if err != nil || len(got) != 2 || got[0].ID != "b" || got[1].ID != "a" {
			t.Fatalf("PushConfigs = %+v, %v; want b then a", got, err)
		}
		none, err := ps.PushConfigs(t.Context(), tenant, NewJob(tenant).ID)
		if err != nil || len(none) != 0 {
			t.Fatalf("PushConfigs of a job without any = %+v, %v; want none", none, err)
		}
	}},
	{"DeleteRemovesOnlyThatConfig", func(t *testing.T, s askonce.Store) {
		ps := pushStore(t, s)
		c := newPushConfig(NewTenant(), "p1")
		keep := c
		keep.ID = "p2"
		for _, c := range []askonce.PushConfig{c, keep} {
			if err := ps.PutPushConfig(t.Context(), c); err != nil {
				t.Fatal(err)
			}
		}
		if err := ps.DeletePushConfig(t.Context(), keyOf(c)); err != nil {
			t.Fatal(err)
		}
		_, err := ps.PushConfig(t.Context(), keyOf(c))
		wantCode(t, "deleted config", err, askonce.ENOTFOUND)
		got, err := ps.PushConfigs(t.Context(), c.TenantID, c.JobID)
		if err != nil || len(got) != 1 || got[0].ID != "p2" {
			t.Fatalf("PushConfigs after delete = %+v, %v; want p2 alone", got, err)
		}
	}},
	{"PutWithoutAJobAnIDOrAURLIsInvalidAndStoresNothing", func(t *testing.T, s askonce.Store) {
		ps := pushStore(t, s)
		for _, blank := range []func(*askonce.PushConfig){
			func(c *askonce.PushConfig) { c.JobID = "" },
			func(c *askonce.PushConfig) { c.ID = "" },
			func(c *askonce.PushConfig) { c.URL = "" },
		} {
			c := newPushConfig(NewTenant(), "p1")
			blank(&c)
			wantCode(t, "config with a blank field", ps.PutPushConfig(t.Context(), c), askonce.EINVALID)
			if got, err := ps.PushConfigs(t.Context(), c.TenantID, c.JobID); err != nil || len(got) != 0 {
				t.Fatalf("PushConfigs after the refused put = %+v, %v; want none", got, err)
			}
		}
	}},
	{"DeleteOfAnUnknownConfigIsNotFound", func(t *testing.T, s askonce.Store) {
		ps := pushStore(t, s)
		c := newPushConfig(NewTenant(), "p1")
		err := ps.DeletePushConfig(t.Context(), keyOf(c))
		wantCode(t, "unknown config", err, askonce.ENOTFOUND)
	}},
	{"AnotherTenantSeesNoConfig", func(t *testing.T, s askonce.Store) {
		ps := pushStore(t, s)
		c := newPushConfig(NewTenant(), "p1")
		if err := ps.PutPushConfig(t.Context(), c); err != nil {
			t.Fatal(err)
		}
		other := keyOf(c)
		other.TenantID = NewTenant()
		_, err := ps.PushConfig(t.Context(), other)
		wantCode(t, "get from another tenant", err, askonce.ENOTFOUND)
		if got, err := ps.PushConfigs(t.Context(), other.TenantID, c.JobID); err != nil || len(got) != 0 {
			t.Fatalf("another tenant lists %+v, %v; want none", got, err)
		}
		err = ps.DeletePushConfig(t.Context(), other)
		wantCode(t, "delete from another tenant", err, askonce.ENOTFOUND)
		if _, err := ps.PushConfig(t.Context(), keyOf(c)); err != nil {
			t.Fatalf("the owner's config after another tenant's delete: %v", err)
		}
	}},
}

func pushStore(t *testing.T, s askonce.Store) askonce.PushConfigStore {
	t.Helper()
	ps, ok := s.(askonce.PushConfigStore)
	if !ok {
		t.Fatalf("%T keeps no push-notification configs (askonce.PushConfigStore)", s)
	}
	return ps
}

// newPushConfig is a config of a new job of tenant.
func newPushConfig(tenant, id string) askonce.PushConfig {
	return askonce.PushConfig{TenantID: tenant, JobID: NewJob(tenant).ID, ID: id,
		URL: "https://example.com/hook", CreatedAt: Now()}
}

func keyOf(c askonce.PushConfig) askonce.PushConfigKey {
	return askonce.PushConfigKey{TenantID: c.TenantID, JobID: c.JobID, ID: c.ID}
}

func samePushConfig(a, b askonce.PushConfig) bool {
	eq := a.CreatedAt.Equal(b.CreatedAt)
	a.CreatedAt, b.CreatedAt = time.Time{}, time.Time{}
	return eq && a == b
}
