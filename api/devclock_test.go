package api_test

import (
	"net/http"
	"testing"
	"time"

	"clearvest/api"
	"clearvest/app/accounts/accountstest"
	"clearvest/domain/clock"
)

type devClockJSON struct {
	Now           time.Time `json:"now"`
	Offset        string    `json:"offset"`
	OffsetSeconds int64     `json:"offsetSeconds"`
}

// TestDevelopmentTestClock serves an accounts service that reads the test clock, as serve wires
// it in development: moving the clock moves the application's time (a session's access token
// runs out), and bad steps are refused.
func TestDevelopmentTestClock(t *testing.T) {
	t.Parallel()
	dev := clock.NewOffset(clock.System())
	env := accountstest.New(t, accountstest.WithClock(dev))
	a := serve(t, env, func(d *api.Deps) { d.DevClock = dev })
	browser, user := a.member(t, "clock@example.com", "subscriber")
	bearer := a.apiClient(t, user.Token)
	expect(t, bearer.do(http.MethodGet, "/api/users/getUser", nil), http.StatusOK)

	res := browser.do(http.MethodGet, "/api/dev/clock", nil)
	expect(t, res, http.StatusOK)
	got := decodeJSON[devClockJSON](t, res)
	if got.Offset != "0s" || got.OffsetSeconds != 0 || time.Since(got.Now).Abs() > time.Minute {
		t.Fatalf("clock before any advance: %+v", got)
	}

	res = browser.do(http.MethodPost, "/api/dev/clock", map[string]string{"advance": "72h"})
	expect(t, res, http.StatusOK)
	got = decodeJSON[devClockJSON](t, res)
	if got.Offset != "72h0m0s" || got.OffsetSeconds != 72*3600 || (time.Until(got.Now)-72*time.Hour).Abs() > time.Minute {
		t.Fatalf("clock after advancing 72h: %+v", got)
	}
	if dev.Offset() != 72*time.Hour {
		t.Fatalf("the process's clock is %s ahead, want 72h", dev.Offset())
	}
	// The services read the moved clock: three days later the access token has expired.
	expect(t, bearer.do(http.MethodGet, "/api/users/getUser", nil), http.StatusUnauthorized)

	for _, body := range []any{
		map[string]string{"advance": "-1h"},
		map[string]string{"advance": "0s"},
		map[string]string{"advance": "soon"},
		map[string]string{"advance": ""},
		map[string]string{"advance": "87601h"},
		map[string]int{"advance": 3600},
		map[string]string{},
	} {
		res := browser.do(http.MethodPost, "/api/dev/clock", body)
		expect(t, res, http.StatusBadRequest)
		decodeError(t, res)
	}
	expect(t, browser.do(http.MethodPost, "/api/dev/clock", map[string]string{"advance": "87600h"}), http.StatusOK)
	res = browser.do(http.MethodGet, "/api/dev/clock", nil)
	expect(t, res, http.StatusOK)
	if got := decodeJSON[devClockJSON](t, res); got.OffsetSeconds != (72+87600)*3600 {
		t.Errorf("after the refusals and a maximal advance the offset is %s, want 87672h", got.Offset)
	}

	// Production never serves it, even with a test clock given; nor does development without one.
	prod := serve(t, env, func(d *api.Deps) { d.Env = api.EnvProduction; d.DevClock = dev })
	noClock := serve(t, env, nil)
	for _, other := range []*app{prod, noClock} {
		b := other.browser(t)
		// A browser in production comes from the public URL (the Host's origin is refused there).
		b.header.Set("Origin", accountstest.PublicURL)
		expect(t, b.do(http.MethodGet, "/api/dev/clock", nil), http.StatusNotFound)
		expect(t, b.do(http.MethodPost, "/api/dev/clock", map[string]string{"advance": "1h"}), http.StatusNotFound)
	}
	if dev.Offset() != (72+87600)*time.Hour {
		t.Errorf("a refused request moved the clock to %s", dev.Offset())
	}
}
