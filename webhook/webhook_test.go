package webhook

import (
	"encoding/base64"
	"errors"
	"net/http"
	"strconv"
	"testing"
	"time"
)

const secret = "whsec_" + "c2VjcmV0LWtleS1mb3ItdGVzdHM=" // base64("secret-key-for-tests")

func headersFor(t *testing.T, secret, id string, ts time.Time, body []byte) http.Header {
	t.Helper()
	sig, err := Sign(secret, id, ts, body)
	if err != nil {
		t.Fatal(err)
	}
	h := http.Header{}
	h.Set(HeaderID, id)
	h.Set(HeaderTimestamp, strconv.FormatInt(ts.Unix(), 10))
	h.Set(HeaderSignature, sig)
	return h
}

func TestSignVerify(t *testing.T) {
	t.Parallel()
	body := []byte(`{"type":"job.succeeded","data":{"jobId":"j1"}}`)
	now := time.Now()
	for _, secret := range []string{secret, "a raw secret, used as is"} {
		h := headersFor(t, secret, "j1", now, body)
		if err := Verify(secret, h, body, 0); err != nil {
			t.Errorf("%q: round trip: %v", secret, err)
		}
		// Tampering with the body, the id or the timestamp breaks it.
		if err := Verify(secret, h, []byte(`{"type":"job.succeeded","data":{"jobId":"j2"}}`), 0); !errors.Is(err, ErrSignature) {
			t.Errorf("tampered body: %v", err)
		}
		h2 := h.Clone()
		h2.Set(HeaderID, "j2")
		if err := Verify(secret, h2, body, 0); !errors.Is(err, ErrSignature) {
			t.Errorf("tampered id: %v", err)
		}
		h2 = h.Clone()
		h2.Set(HeaderTimestamp, strconv.FormatInt(now.Unix()+1, 10))
		if err := Verify(secret, h2, body, 0); !errors.Is(err, ErrSignature) {
			t.Errorf("tampered timestamp: %v", err)
		}
		if err := Verify(secret+"x", h, body, 0); err == nil {
			t.Error("wrong secret verified")
		}
	}

	// The Standard Webhooks form: the key is the base64 after whsec_.
	key := []byte("secret-key-for-tests")
	sig1, _ := Sign("whsec_"+base64.StdEncoding.EncodeToString(key), "j1", now, body)
	sig2, _ := Sign(string(key), "j1", now, body)
	if sig1 != sig2 || sig1[:3] != "v1," {
		t.Errorf("whsec_ form %q, raw form %q: want the same v1 signature", sig1, sig2)
	}

	// Several signatures (a key rotation): one match is enough.
	h := headersFor(t, secret, "j1", now, body)
	h.Set(HeaderSignature, "v1,AAAA v2,whatever "+h.Get(HeaderSignature))
	if err := Verify(secret, h, body, 0); err != nil {
		t.Errorf("rotation: %v", err)
	}

	// Stale and future timestamps, unless the check is off.
	old := headersFor(t, secret, "j1", now.Add(-time.Hour), body)
	if err := Verify(secret, old, body, 0); !errors.Is(err, ErrTimestamp) {
		t.Errorf("stale: %v", err)
	}
	if err := Verify(secret, old, body, -1); err != nil {
		t.Errorf("stale with no tolerance check: %v", err)
	}
	if err := Verify(secret, headersFor(t, secret, "j1", now.Add(time.Hour), body), body, time.Minute); !errors.Is(err, ErrTimestamp) {
		t.Errorf("future: %v", err)
	}

	// Missing headers and bad secrets.
	if err := Verify(secret, http.Header{}, body, 0); !errors.Is(err, ErrMissingHeaders) {
		t.Errorf("no headers: %v", err)
	}
	if _, err := Sign("whsec_!!!", "j1", now, body); err == nil {
		t.Error("invalid whsec_ secret signed")
	}
	if _, err := Sign("", "j1", now, body); err == nil {
		t.Error("empty secret signed")
	}
}
