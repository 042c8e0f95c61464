package blob

import (
	"net/http"
	"testing"
	"time"
)

// TestSigV4AWSExample reproduces the "GET Object" example of the AWS documentation
// (Signature Version 4, "Examples: Signature Calculations in AWS Signature Version 4" for S3):
// the published canonical request and signature pin the signer to what S3 computes.
func TestSigV4AWSExample(t *testing.T) {
	t.Parallel()
	req, err := http.NewRequest(http.MethodGet, "https://examplebucket.s3.amazonaws.com/test.txt", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Range", "bytes=0-9")
	s := sigV4{
		accessKey: "AKIAIOSFODNN7EXAMPLE",
		secretKey: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
		region:    "us-east-1",
		service:   "s3",
	}
	s.sign(req, emptyPayloadSHA, time.Date(2013, 5, 24, 0, 0, 0, 0, time.UTC))

	wantCanonical := "GET\n" +
		"/test.txt\n" +
		"\n" +
		"host:examplebucket.s3.amazonaws.com\n" +
		"range:bytes=0-9\n" +
		"x-amz-content-sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855\n" +
		"x-amz-date:20130524T000000Z\n" +
		"\n" +
		"host;range;x-amz-content-sha256;x-amz-date\n" +
		"e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
	if got, _ := s.canonicalRequest(req, emptyPayloadSHA); got != wantCanonical {
		t.Errorf("canonical request:\n%s\nwant:\n%s", got, wantCanonical)
	}
	if got, want := req.Header.Get("X-Amz-Date"), "20130524T000000Z"; got != want {
		t.Errorf("X-Amz-Date = %q, want %q", got, want)
	}
	want := "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request, " +
		"SignedHeaders=host;range;x-amz-content-sha256;x-amz-date, " +
		"Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41"
	if got := req.Header.Get("Authorization"); got != want {
		t.Errorf("Authorization:\n%s\nwant:\n%s", got, want)
	}
}

func TestURIEncode(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		in          string
		encodeSlash bool
		want        string
	}{
		{"photos/a b+c=d.jpg", false, "photos/a%20b%2Bc%3Dd.jpg"},
		{"a/b", true, "a%2Fb"},
		{"Az09-_.~", true, "Az09-_.~"},
		{"é", false, "%C3%A9"},
	} {
		if got := uriEncode(tt.in, tt.encodeSlash); got != tt.want {
			t.Errorf("uriEncode(%q, %v) = %q, want %q", tt.in, tt.encodeSlash, got, tt.want)
		}
	}
}
