package config_test

import (
	"bytes"
	"encoding/base64"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"clearvest/domain/fees"
	"clearvest/domain/money"
	"clearvest/platform/config"
)

func env(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

func validKey() string { return base64.StdEncoding.EncodeToString(bytes.Repeat([]byte{7}, 32)) }

func keyOf(b byte) string { return base64.StdEncoding.EncodeToString(bytes.Repeat([]byte{b}, 32)) }

func wantPrevious(t *testing.T, c config.Config, n int) {
	t.Helper()
	if len(c.PreviousSecretKeys) != n {
		t.Errorf("%d previous secret keys, want %d", len(c.PreviousSecretKeys), n)
	}
}

func TestLoad(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		env     map[string]string
		check   func(t *testing.T, c config.Config, dataDir string)
		wantErr string // substring; empty means success
	}{
		{
			name: "no configuration gives a working development setup",
			env:  map[string]string{},
			check: func(t *testing.T, c config.Config, dataDir string) {
				want := config.Config{
					Addr:      ":8080",
					DataDir:   dataDir,
					PublicURL: "http://localhost:8080",
					Env:       config.Development,
					MailURL:   "file://" + filepath.ToSlash(filepath.Join(dataDir, "mail")),
				}
				if c.DatabaseURL != "" || c.Addr != want.Addr || c.DataDir != want.DataDir || c.PublicURL != want.PublicURL ||
					c.Env != want.Env || c.MailURL != want.MailURL || c.GoogleClientID != "" || len(c.DepositAddresses) != 0 || c.BlobS3 != nil ||
					c.MetricsAddr != "" {
					t.Errorf("got %+v, want %+v", c, want)
				}
				if len(c.SecretKey) != 32 {
					t.Errorf("generated key has %d bytes, want 32", len(c.SecretKey))
				}
				if !c.Embedded() || c.Production() {
					t.Errorf("Embedded()=%v Production()=%v, want true false", c.Embedded(), c.Production())
				}
			},
		},
		{
			name: "every variable is read",
			env: map[string]string{
				"DATABASE_URL":                "postgres://u:p@db:5432/clearvest",
				"CLEARVEST_ADDR":              "127.0.0.1:9000",
				"CLEARVEST_PUBLIC_URL":        "https://clearvest.example.com/",
				"CLEARVEST_ENV":               "production",
				"CLEARVEST_MAIL_URL":          "smtp://user:secret@mail.example.com:587",
				"CLEARVEST_SECRET_KEY":        validKey(),
				"GOOGLE_CLIENT_ID":            "abc.apps.googleusercontent.com",
				"CLEARVEST_DEPOSIT_ADDRESSES": "USDT/TRC20=TBXSw8fM4jpQkGc6zZjsVABFpVN7UvXPdV",
				"CLEARVEST_METRICS_ADDR":      "10.0.0.7:9090",
				"CLEARVEST_READ_DATABASE_URL": "postgres://u:p@standby:5432/clearvest",
				"CLEARVEST_READ_MAX_LAG":      "2s",
			},
			check: func(t *testing.T, c config.Config, _ string) {
				if c.DatabaseURL != "postgres://u:p@db:5432/clearvest" || c.Addr != "127.0.0.1:9000" ||
					c.PublicURL != "https://clearvest.example.com" || !c.Production() ||
					c.MailURL != "smtp://user:secret@mail.example.com:587" || !bytes.Equal(c.SecretKey, bytes.Repeat([]byte{7}, 32)) ||
					c.GoogleClientID != "abc.apps.googleusercontent.com" || len(c.DepositAddresses) != 1 || c.DepositAddresses[0] != (config.DepositAddress{Asset: "USDT", Network: "TRC20", Address: "TBXSw8fM4jpQkGc6zZjsVABFpVN7UvXPdV"}) || c.Embedded() ||
					c.MetricsAddr != "10.0.0.7:9090" || len(c.Reads.URLs) != 1 || c.Reads.URLs[0] != "postgres://u:p@standby:5432/clearvest" || c.Reads.MaxLag != 2*time.Second {
					t.Errorf("unexpected config %+v", c)
				}
			},
		},
		{
			name: "key=value database connection strings are accepted",
			env:  map[string]string{"DATABASE_URL": "host=db user=app dbname=clearvest"},
		},
		{
			name: "file mail URL in development",
			env:  map[string]string{"CLEARVEST_MAIL_URL": "file:///var/mail/clearvest"},
			check: func(t *testing.T, c config.Config, _ string) {
				if c.MailURL != "file:///var/mail/clearvest" {
					t.Errorf("MailURL = %q", c.MailURL)
				}
			},
		},
		{name: "unknown environment", env: map[string]string{"CLEARVEST_ENV": "staging"}, wantErr: `CLEARVEST_ENV: unknown environment "staging"`},
		{name: "production needs mail", env: map[string]string{"CLEARVEST_ENV": "production", "CLEARVEST_SECRET_KEY": validKey()}, wantErr: "CLEARVEST_MAIL_URL is required in production"},
		{name: "production needs a secret key", env: map[string]string{"CLEARVEST_ENV": "production", "CLEARVEST_MAIL_URL": "smtp://mail:25"}, wantErr: "CLEARVEST_SECRET_KEY is required in production"},
		{name: "secret key not base64", env: map[string]string{"CLEARVEST_SECRET_KEY": "not base64!"}, wantErr: "CLEARVEST_SECRET_KEY: not standard base64"},
		{name: "secret key too short", env: map[string]string{"CLEARVEST_SECRET_KEY": base64.StdEncoding.EncodeToString([]byte("short"))}, wantErr: "CLEARVEST_SECRET_KEY: decodes to 5 bytes, want exactly 32"},
		{name: "URL-safe base64 is refused", env: map[string]string{"CLEARVEST_SECRET_KEY": base64.URLEncoding.EncodeToString(bytes.Repeat([]byte{0xfb}, 32))}, wantErr: "CLEARVEST_SECRET_KEY: not standard base64"},
		{
			name: "previous secret keys, separated by commas",
			env: map[string]string{
				"CLEARVEST_SECRET_KEY":          validKey(),
				"CLEARVEST_SECRET_KEY_PREVIOUS": keyOf(1) + " , " + keyOf(2),
			},
			check: func(t *testing.T, c config.Config, _ string) {
				if len(c.PreviousSecretKeys) != 2 || !bytes.Equal(c.PreviousSecretKeys[0], bytes.Repeat([]byte{1}, 32)) ||
					!bytes.Equal(c.PreviousSecretKeys[1], bytes.Repeat([]byte{2}, 32)) {
					t.Errorf("PreviousSecretKeys = %x", c.PreviousSecretKeys)
				}
			},
		},
		{
			name:  "previous secret keys next to the development key",
			env:   map[string]string{"CLEARVEST_SECRET_KEY_PREVIOUS": keyOf(1)},
			check: func(t *testing.T, c config.Config, _ string) { wantPrevious(t, c, 1) },
		},
		{name: "no previous secret keys", env: map[string]string{"CLEARVEST_SECRET_KEY": validKey()}, check: func(t *testing.T, c config.Config, _ string) { wantPrevious(t, c, 0) }},
		{name: "previous secret key not base64", env: map[string]string{"CLEARVEST_SECRET_KEY": validKey(), "CLEARVEST_SECRET_KEY_PREVIOUS": keyOf(1) + ",nope!"}, wantErr: "CLEARVEST_SECRET_KEY_PREVIOUS (key 2): not standard base64"},
		{name: "previous secret key too short", env: map[string]string{"CLEARVEST_SECRET_KEY": validKey(), "CLEARVEST_SECRET_KEY_PREVIOUS": base64.StdEncoding.EncodeToString([]byte("short"))}, wantErr: "CLEARVEST_SECRET_KEY_PREVIOUS (key 1): decodes to 5 bytes"},
		{name: "previous secret key is the current one", env: map[string]string{"CLEARVEST_SECRET_KEY": validKey(), "CLEARVEST_SECRET_KEY_PREVIOUS": validKey()}, wantErr: "CLEARVEST_SECRET_KEY_PREVIOUS (key 1): is the current key"},
		{name: "previous secret key twice", env: map[string]string{"CLEARVEST_SECRET_KEY": validKey(), "CLEARVEST_SECRET_KEY_PREVIOUS": keyOf(1) + "," + keyOf(1)}, wantErr: "CLEARVEST_SECRET_KEY_PREVIOUS (key 2): is listed twice"},
		{name: "empty entry in the previous secret keys", env: map[string]string{"CLEARVEST_SECRET_KEY": validKey(), "CLEARVEST_SECRET_KEY_PREVIOUS": keyOf(1) + ","}, wantErr: "CLEARVEST_SECRET_KEY_PREVIOUS (key 2): decodes to 0 bytes"},
		{name: "bad listen address", env: map[string]string{"CLEARVEST_ADDR": "8080"}, wantErr: "CLEARVEST_ADDR: \"8080\" is not a listen address"},
		{name: "bad metrics address", env: map[string]string{"CLEARVEST_METRICS_ADDR": "9090"}, wantErr: "CLEARVEST_METRICS_ADDR: \"9090\" is not a listen address"},
		{name: "metrics on the public listener", env: map[string]string{"CLEARVEST_METRICS_ADDR": ":8080"}, wantErr: "CLEARVEST_METRICS_ADDR: \":8080\" is CLEARVEST_ADDR too"},
		{name: "relative public URL", env: map[string]string{"CLEARVEST_PUBLIC_URL": "clearvest.example.com"}, wantErr: "CLEARVEST_PUBLIC_URL:"},
		{name: "unsupported mail scheme", env: map[string]string{"CLEARVEST_MAIL_URL": "http://mail"}, wantErr: `CLEARVEST_MAIL_URL: scheme "http" is not supported`},
		{name: "relative mail directory", env: map[string]string{"CLEARVEST_MAIL_URL": "file://mail"}, wantErr: "CLEARVEST_MAIL_URL:"},
		{name: "read replicas need DATABASE_URL", env: map[string]string{"CLEARVEST_READ_DATABASE_URL": "postgres://standby/x"}, wantErr: "CLEARVEST_READ_DATABASE_URL needs DATABASE_URL"},
		{name: "unsupported database scheme", env: map[string]string{"DATABASE_URL": "mysql://db/x"}, wantErr: `DATABASE_URL: scheme "mysql" is not supported`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dataDir := filepath.Join(t.TempDir(), "data")
			m := map[string]string{"CLEARVEST_DATA_DIR": dataDir}
			for k, v := range tt.env {
				m[k] = v
			}
			c, err := config.Load(env(m))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if tt.check != nil {
				tt.check(t, c, dataDir)
			}
		})
	}
}

func TestDevelopmentSecretKeyIsPersisted(t *testing.T) {
	t.Parallel()
	dataDir := filepath.Join(t.TempDir(), "data")
	getenv := env(map[string]string{"CLEARVEST_DATA_DIR": dataDir})

	first, err := config.Load(getenv)
	if err != nil {
		t.Fatal(err)
	}
	info, err := os.Stat(filepath.Join(dataDir, config.SecretKeyFile))
	if err != nil {
		t.Fatal(err)
	}
	if perm := info.Mode().Perm(); perm != 0o600 {
		t.Errorf("secret key file mode = %o, want 600", perm)
	}
	second, err := config.Load(getenv)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(first.SecretKey, second.SecretKey) {
		t.Error("second start generated a new key instead of reusing the stored one")
	}

	other, err := config.Load(env(map[string]string{"CLEARVEST_DATA_DIR": filepath.Join(t.TempDir(), "data")}))
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Equal(first.SecretKey, other.SecretKey) {
		t.Error("two data directories share one key")
	}
}

func TestDevelopmentSecretKeyCorruptFile(t *testing.T) {
	t.Parallel()
	dataDir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dataDir, config.SecretKeyFile), []byte("garbage"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := config.Load(env(map[string]string{"CLEARVEST_DATA_DIR": dataDir}))
	if err == nil || !strings.Contains(err.Error(), config.SecretKeyFile) {
		t.Fatalf("err = %v, want one naming the key file", err)
	}
}

func TestConcurrentFirstStartsAgreeOnKey(t *testing.T) {
	t.Parallel()
	dataDir := t.TempDir()
	getenv := env(map[string]string{"CLEARVEST_DATA_DIR": dataDir})
	keys := make(chan []byte, 8)
	for range cap(keys) {
		go func() {
			c, err := config.Load(getenv)
			if err != nil {
				t.Error(err)
			}
			keys <- c.SecretKey
		}()
	}
	first := <-keys
	for range cap(keys) - 1 {
		if k := <-keys; !bytes.Equal(k, first) {
			t.Fatal("concurrent first starts produced different keys")
		}
	}
}

func TestLogValueHidesSecrets(t *testing.T) {
	t.Parallel()
	c := config.Config{
		DatabaseURL: "postgres://app:dbpass@db/clearvest",
		MailURL:     "smtp://user:mailpass@mail:587",
		SecretKey:   []byte("0123456789abcdef0123456789abcdef"),
		BlobS3:      &config.S3{Endpoint: "https://s3.example.com", Bucket: "photos", AccessKey: "AKID", SecretKey: "blobsecret"},
	}
	s := c.LogValue().String()
	for _, secret := range []string{"dbpass", "mailpass", "0123456789abcdef", "blobsecret"} {
		if strings.Contains(s, secret) {
			t.Errorf("log value %q contains %q", s, secret)
		}
	}
}

func TestBlobURL(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		url     string
		want    config.S3
		wantErr string // substring; empty means success
	}{
		{
			name: "defaults: TLS and us-east-1",
			url:  "s3://AKID:secret@s3.amazonaws.com/clearvest-photos",
			want: config.S3{Endpoint: "https://s3.amazonaws.com", Bucket: "clearvest-photos", Region: "us-east-1", AccessKey: "AKID", SecretKey: "secret"},
		},
		{
			name: "MinIO without TLS on a port",
			url:  "s3://minio:minio123@minio:9000/photos/?region=local&tls=false",
			want: config.S3{Endpoint: "http://minio:9000", Bucket: "photos", Region: "local", AccessKey: "minio", SecretKey: "minio123"},
		},
		{
			name: "percent-encoded secret",
			url:  "s3://AKID:wJal%2FK7M%2BbPx@r2.example.com/b.c-d?tls=true&region=auto",
			want: config.S3{Endpoint: "https://r2.example.com", Bucket: "b.c-d", Region: "auto", AccessKey: "AKID", SecretKey: "wJal/K7M+bPx"},
		},
		{name: "other scheme", url: "https://AKID:secret@s3.amazonaws.com/b", wantErr: `CLEARVEST_BLOB_URL: scheme "https" is not supported`},
		{name: "no credentials", url: "s3://s3.amazonaws.com/bucket", wantErr: "CLEARVEST_BLOB_URL: s3://s3.amazonaws.com/bucket needs an access key and a secret key"},
		{name: "no secret", url: "s3://AKID@s3.amazonaws.com/bucket", wantErr: "CLEARVEST_BLOB_URL:"},
		{name: "no host", url: "s3://AKID:secret@/bucket", wantErr: "CLEARVEST_BLOB_URL:"},
		{name: "no bucket", url: "s3://AKID:secret@s3.amazonaws.com", wantErr: `CLEARVEST_BLOB_URL: "" is not a bucket name`},
		{name: "path below the bucket", url: "s3://AKID:secret@s3.amazonaws.com/bucket/photos", wantErr: `CLEARVEST_BLOB_URL: "bucket/photos" is not a bucket name`},
		{name: "upper-case bucket", url: "s3://AKID:secret@s3.amazonaws.com/Photos", wantErr: "is not a bucket name"},
		{name: "bad tls", url: "s3://AKID:secret@s3.amazonaws.com/bucket?tls=maybe", wantErr: `CLEARVEST_BLOB_URL: tls="maybe" is not true or false`},
		{name: "empty region", url: "s3://AKID:secret@s3.amazonaws.com/bucket?region=", wantErr: "CLEARVEST_BLOB_URL: region is empty"},
		{name: "misspelt parameter", url: "s3://AKID:secret@s3.amazonaws.com/bucket?regoin=eu-west-1", wantErr: `CLEARVEST_BLOB_URL: unknown parameter "regoin"`},
		{name: "unencoded slash in the secret", url: "s3://AKID:wJal/K7M@s3.amazonaws.com/bucket", wantErr: "CLEARVEST_BLOB_URL:"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c, err := config.Load(env(map[string]string{
				"CLEARVEST_DATA_DIR": filepath.Join(t.TempDir(), "data"),
				"CLEARVEST_BLOB_URL": tt.url,
			}))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want one containing %q", err, tt.wantErr)
				}
				if strings.Contains(err.Error(), "secret@") || strings.Contains(err.Error(), "K7M") {
					t.Errorf("error %q reveals the secret key", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if c.BlobS3 == nil || *c.BlobS3 != tt.want {
				t.Fatalf("BlobS3 = %+v, want %+v", c.BlobS3, tt.want)
			}
		})
	}
}

func TestTrustedProxies(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		value   string
		want    []string
		wantErr string // substring; empty means success
	}{
		{name: "unset trusts nobody", value: "", want: nil},
		{name: "prefixes and bare addresses", value: "10.0.0.0/8, 192.0.2.7 2001:db8::/32\t2001:db8::1",
			want: []string{"10.0.0.0/8", "192.0.2.7/32", "2001:db8::/32", "2001:db8::1/128"}},
		{name: "IPv4-mapped addresses are IPv4", value: "::ffff:192.0.2.7", want: []string{"192.0.2.7/32"}},
		{name: "not an address", value: "10.0.0.0/8,proxy.internal", wantErr: `CLEARVEST_TRUSTED_PROXIES: "proxy.internal" is neither an IP address nor a CIDR prefix`},
		{name: "bad prefix length", value: "10.0.0.0/33", wantErr: `CLEARVEST_TRUSTED_PROXIES: "10.0.0.0/33" is not a CIDR prefix`},
		{name: "host bits set", value: "10.1.2.3/8", wantErr: `CLEARVEST_TRUSTED_PROXIES: "10.1.2.3/8" has bits set past the prefix length; write 10.0.0.0/8 for the network or 10.1.2.3/32 for the one address`},
		{name: "zone", value: "fe80::1%eth0", wantErr: "has an IPv6 zone"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c, err := config.Load(env(map[string]string{
				"CLEARVEST_DATA_DIR":        filepath.Join(t.TempDir(), "data"),
				"CLEARVEST_TRUSTED_PROXIES": tt.value,
			}))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, p := range c.TrustedProxies {
				got = append(got, p.String())
			}
			if strings.Join(got, " ") != strings.Join(tt.want, " ") {
				t.Fatalf("TrustedProxies = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestWithdrawalFee(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		value   string
		want    string // the schedule as published
		wantErr string // substring; empty means success
	}{
		{name: "unset is the default", value: "", want: "1% + $1.00 (at most $25.00), minimum $10.00"},
		{name: "every term", value: "percent=1.5,flat=1.00,min=10.00,cap=50.00", want: "1.5% + $1.00 (at most $50.00), minimum $10.00"},
		{name: "any order, spaces around terms", value: " min=10 , percent=0.25 ", want: "0.25%, minimum $10.00"},
		{name: "flat only", value: "flat=2.50,min=20", want: "$2.50, minimum $20.00"},
		{name: "free", value: "percent=0", want: "Free"},
		{name: "unknown term", value: "percent=1,fixed=1.00", wantErr: `CLEARVEST_WITHDRAWAL_FEE: unknown term "fixed"; use percent, flat, min and cap`},
		{name: "not key=value", value: "1.5%", wantErr: `CLEARVEST_WITHDRAWAL_FEE: "1.5%" is not key=value`},
		{name: "empty term", value: "percent=1,,min=10", wantErr: `CLEARVEST_WITHDRAWAL_FEE: "" is not key=value`},
		{name: "empty value", value: "percent=", wantErr: `"percent=" is not key=value`},
		{name: "a term twice", value: "percent=1,percent=2", wantErr: "CLEARVEST_WITHDRAWAL_FEE: percent is given twice"},
		{name: "percent sign", value: "percent=1.5%", wantErr: "CLEARVEST_WITHDRAWAL_FEE: percent=1.5%: A percentage is written like 1.5"},
		{name: "dollar sign", value: "flat=$1", wantErr: "CLEARVEST_WITHDRAWAL_FEE: flat=$1: Please enter a valid amount"},
		{name: "fraction of a cent is not rounded", value: "flat=0.005", wantErr: "flat=0.005: Amount can have at most 2 decimal places"},
		{name: "negative minimum", value: "min=-10", wantErr: "min=-10: Amount cannot be negative"},
		{name: "zero cap", value: "percent=1,cap=0", wantErr: "cap=0 would make every fee zero; leave cap out for no cap"},
		{name: "cap below the flat fee", value: "percent=1,flat=5,min=10,cap=2", wantErr: "CLEARVEST_WITHDRAWAL_FEE: The withdrawal fee schedule is not valid: the cap $2.00 is below the flat fee $5.00"},
		{name: "fee swallows the minimum", value: "flat=5,min=5", wantErr: "leaving nothing to pay out; raise the minimum"},
		{name: "100 percent", value: "percent=100", wantErr: "the percentage must be at least 0 and below 100"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c, err := config.Load(env(map[string]string{
				"CLEARVEST_DATA_DIR":       filepath.Join(t.TempDir(), "data"),
				"CLEARVEST_WITHDRAWAL_FEE": tt.value,
			}))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := c.WithdrawalFee.String(); got != tt.want || c.WithdrawalFee.Operation() != fees.Withdrawal {
				t.Errorf("WithdrawalFee = %q (%s), want %q", got, c.WithdrawalFee.Operation(), tt.want)
			}
		})
	}
}

func TestDefaultWithdrawalFeeQuotes(t *testing.T) {
	t.Parallel()
	s, err := config.ParseWithdrawalFee(config.DefaultWithdrawalFee)
	if err != nil {
		t.Fatal(err)
	}
	q, err := s.Quote(money.MustParse("100.00"))
	if err != nil || q.Fee.String() != "2.00" || q.Net.String() != "98.00" {
		t.Errorf("Quote($100) = %+v, %v; want a $2.00 fee", q, err)
	}
	if _, err := s.Quote(money.MustParse("9.99")); err == nil || err.Error() != "The minimum withdrawal is $10.00" {
		t.Errorf("Quote($9.99) error = %v", err)
	}
}

func TestDepositAddresses(t *testing.T) {
	t.Parallel()
	got, err := config.ParseDepositAddresses(" BTC/BTC = bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4 , USDT/TRC20=TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t,")
	if err != nil || len(got) != 2 || got[0].Address != "bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4" || got[1].Network != "TRC20" {
		t.Fatalf("valid list: %v %+v", err, got)
	}
	for _, bad := range []string{
		"USDT/TRC20=T123", // fails the checksum
		"BTC/TRC20=TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t",                                                  // BTC does not travel on TRON
		"DOGE/BTC=bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4",                                           // unknown asset
		"BTC=bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4",                                                // no network
		"BTC/BTC=bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t5",                                            // one character changed
		"BTC/BTC=bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4,BTC/BTC=3J98t1WpEZ73CNmQviecrnyiWrnqRhWNLy", // twice
	} {
		if _, err := config.ParseDepositAddresses(bad); err == nil || !strings.Contains(err.Error(), config.EnvDepositAddresses) {
			t.Errorf("%q: %v, want an error naming the variable", bad, err)
		}
	}
	if none, err := config.ParseDepositAddresses(""); err != nil || len(none) != 0 {
		t.Errorf("unset: %v %+v", err, none)
	}
}

func TestReferralBonus(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{"": "5.00", " 5 ": "5.00", "12.5": "12.50", "0.01": "0.01"} {
		got, err := config.ParseReferralBonus(in)
		if err != nil || got.String() != want {
			t.Errorf("ParseReferralBonus(%q) = %v, %v; want %s", in, got, err, want)
		}
	}
	for _, bad := range []string{"0", "-5", "5.001", "five", "$5"} {
		if _, err := config.ParseReferralBonus(bad); err == nil || !strings.Contains(err.Error(), config.EnvReferralBonus) {
			t.Errorf("ParseReferralBonus(%q): %v, want an error naming the variable", bad, err)
		}
	}
}

func TestMinDeposit(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{"": "10.00", " 25 ": "25.00", "0.5": "0.50"} {
		got, err := config.ParseMinDeposit(in)
		if err != nil || got.String() != want {
			t.Errorf("ParseMinDeposit(%q) = %v, %v; want %s", in, got, err, want)
		}
	}
	for _, bad := range []string{"0", "-10", "10.001", "ten", "$10"} {
		if _, err := config.ParseMinDeposit(bad); err == nil || !strings.Contains(err.Error(), config.EnvMinDeposit) {
			t.Errorf("ParseMinDeposit(%q): %v, want an error naming the variable", bad, err)
		}
	}
}

func TestCommunityConfig(t *testing.T) {
	t.Parallel()
	c, err := config.LoadCommunity(func(string) string { return "" })
	if err != nil || c.MinInvestors != config.DefaultMinInvestors || c.MinCountries != config.DefaultMinCountries || len(c.Levels) != 4 ||
		c.Levels[1].MinInvested.String() != "1000.00" || c.Levels[3].MinReferrals != 10 {
		t.Fatalf("defaults: %+v, %v", c, err)
	}
	env := map[string]string{config.EnvMinInvestors: "10", config.EnvMinCountries: "2", config.EnvBadgeLevels: "leader=100:0, expert=500:2,master=900.50:4"}
	c, err = config.LoadCommunity(func(k string) string { return env[k] })
	if err != nil || c.MinInvestors != 10 || c.MinCountries != 2 || c.Levels[3].MinInvested.String() != "900.50" || c.Levels[1].MinReferrals != 0 {
		t.Fatalf("set: %+v, %v", c, err)
	}
	for name, bad := range map[string]map[string]string{
		"zero minimum":     {config.EnvMinInvestors: "0"},
		"not a number":     {config.EnvMinCountries: "many"},
		"missing referral": {config.EnvBadgeLevels: "leader=100,expert=500:2,master=900:4"},
		"descending":       {config.EnvBadgeLevels: "leader=1000:1,expert=500:2,master=900:4"},
		"unknown level":    {config.EnvBadgeLevels: "leader=100:1,guru=500:2,master=900:4"},
		"missing level":    {config.EnvBadgeLevels: "leader=100:1,expert=500:2"},
	} {
		if _, err := config.LoadCommunity(func(k string) string { return bad[k] }); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}
