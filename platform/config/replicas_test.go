package config_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"clearvest/platform/config"
)

func TestParseReads(t *testing.T) {
	t.Parallel()
	const primary = "postgres://app:pw@db:5432/clearvest"
	r, err := config.ParseReads(env(nil), primary)
	if err != nil || len(r.URLs) != 0 || r.MaxLag != config.DefaultReadMaxLag {
		t.Errorf("unset = %+v, %v; want no replicas and the default lag", r, err)
	}
	r, err = config.ParseReads(env(map[string]string{
		config.EnvReadDatabaseURL: " postgres://app:pw@standby1:5432/clearvest , host=standby2 user=app dbname=clearvest",
		config.EnvReadMaxLag:      "1500ms",
	}), primary)
	want := []string{"postgres://app:pw@standby1:5432/clearvest", "host=standby2 user=app dbname=clearvest"}
	if err != nil || !slices.Equal(r.URLs, want) || r.MaxLag != 1500*time.Millisecond {
		t.Errorf("two replicas = %+v, %v; want %q and 1.5s", r, err, want)
	}

	for name, tc := range map[string]struct {
		env     map[string]string
		primary string
		wantErr string
	}{
		"no primary":       {map[string]string{config.EnvReadDatabaseURL: "postgres://s/x"}, "", "CLEARVEST_READ_DATABASE_URL needs DATABASE_URL"},
		"bad scheme":       {map[string]string{config.EnvReadDatabaseURL: "postgres://s/x,mysql://s/x"}, primary, `CLEARVEST_READ_DATABASE_URL (replica 2): scheme "mysql" is not supported`},
		"empty entry":      {map[string]string{config.EnvReadDatabaseURL: "postgres://s/x,"}, primary, "(replica 2): is empty"},
		"the primary":      {map[string]string{config.EnvReadDatabaseURL: primary}, primary, "(replica 1): is DATABASE_URL itself"},
		"twice":            {map[string]string{config.EnvReadDatabaseURL: "postgres://s/x,postgres://s/x"}, primary, "(replica 2): is listed twice"},
		"lag not duration": {map[string]string{config.EnvReadMaxLag: "5"}, primary, `CLEARVEST_READ_MAX_LAG: "5" is not a duration`},
		"lag too small":    {map[string]string{config.EnvReadMaxLag: "10ms"}, primary, "CLEARVEST_READ_MAX_LAG"},
	} {
		if _, err := config.ParseReads(env(tc.env), tc.primary); err == nil || !strings.Contains(err.Error(), tc.wantErr) {
			t.Errorf("%s: err = %v, want one containing %q", name, err, tc.wantErr)
		}
	}
}
