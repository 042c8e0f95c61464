package blob

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"time"
)

// AWS Signature Version 4, the request signing every S3-compatible service accepts. It is
// written out here rather than taken from the AWS SDK: signing a handful of plain requests is a
// page of code, and the SDK would pull in dozens of modules for it.

const (
	sigV4Algorithm  = "AWS4-HMAC-SHA256"
	amzDateFormat   = "20060102T150405Z"
	emptyPayloadSHA = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
)

type sigV4 struct {
	accessKey, secretKey, region, service string
}

// sign adds the X-Amz-Date, X-Amz-Content-Sha256 and Authorization headers. payloadSHA is the
// hex SHA-256 of the body: S3 checks the body it receives against it, so a request altered in
// transit is refused rather than stored.
func (s sigV4) sign(req *http.Request, payloadSHA string, now time.Time) {
	now = now.UTC()
	amzDate := now.Format(amzDateFormat)
	req.Header.Set("X-Amz-Date", amzDate)
	req.Header.Set("X-Amz-Content-Sha256", payloadSHA)

	canonical, signed := s.canonicalRequest(req, payloadSHA)
	scope := amzDate[:8] + "/" + s.region + "/" + s.service + "/aws4_request"
	stringToSign := sigV4Algorithm + "\n" + amzDate + "\n" + scope + "\n" + hexSHA256([]byte(canonical))

	key := hmacSHA256([]byte("AWS4"+s.secretKey), amzDate[:8])
	key = hmacSHA256(key, s.region)
	key = hmacSHA256(key, s.service)
	key = hmacSHA256(key, "aws4_request")
	signature := hex.EncodeToString(hmacSHA256(key, stringToSign))

	req.Header.Set("Authorization", sigV4Algorithm+" Credential="+s.accessKey+"/"+scope+
		", SignedHeaders="+signed+", Signature="+signature)
}

// signedHeader reports whether a header takes part in the signature. Only headers whose value
// matters to S3 are signed: a proxy may legitimately rewrite the others (Accept-Encoding,
// User-Agent), which would break a signature covering them.
func signedHeader(name string) bool {
	switch name {
	case "host", "content-md5", "content-type", "if-match", "range":
		return true
	}
	return strings.HasPrefix(name, "x-amz-")
}

func (s sigV4) canonicalRequest(req *http.Request, payloadSHA string) (canonical, signedHeaders string) {
	host := req.Host
	if host == "" {
		host = req.URL.Host
	}
	values := map[string]string{"host": host}
	for name, vs := range req.Header {
		name = strings.ToLower(name)
		if name == "host" || !signedHeader(name) {
			continue
		}
		trimmed := make([]string, len(vs))
		for i, v := range vs {
			trimmed[i] = strings.Join(strings.Fields(v), " ")
		}
		values[name] = strings.Join(trimmed, ",")
	}
	names := make([]string, 0, len(values))
	for name := range values {
		names = append(names, name)
	}
	sort.Strings(names)
	var headers strings.Builder
	for _, name := range names {
		headers.WriteString(name + ":" + values[name] + "\n")
	}
	signedHeaders = strings.Join(names, ";")

	canonical = strings.Join([]string{
		req.Method,
		canonicalURI(req.URL),
		canonicalQuery(req.URL.Query()),
		headers.String(),
		signedHeaders,
		payloadSHA,
	}, "\n")
	return canonical, signedHeaders
}

// canonicalURI is the path exactly as it goes on the wire. S3, unlike the other AWS services,
// wants it encoded once, not twice.
func canonicalURI(u *url.URL) string {
	if p := u.EscapedPath(); p != "" {
		return p
	}
	return "/"
}

func canonicalQuery(q url.Values) string {
	pairs := make([]string, 0, len(q))
	for k, vs := range q {
		for _, v := range vs {
			pairs = append(pairs, uriEncode(k, true)+"="+uriEncode(v, true))
		}
	}
	sort.Strings(pairs)
	return strings.Join(pairs, "&")
}

// uriEncode is SigV4's percent-encoding: everything but the unreserved characters of RFC 3986,
// with upper-case hex. It differs from url.PathEscape and url.QueryEscape, which leave some
// sub-delimiters alone or turn spaces into '+'.
func uriEncode(s string, encodeSlash bool) string {
	const hexDigits = "0123456789ABCDEF"
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'A' <= c && c <= 'Z', 'a' <= c && c <= 'z', '0' <= c && c <= '9',
			c == '-', c == '_', c == '.', c == '~', c == '/' && !encodeSlash:
			b.WriteByte(c)
		default:
			b.WriteByte('%')
			b.WriteByte(hexDigits[c>>4])
			b.WriteByte(hexDigits[c&15])
		}
	}
	return b.String()
}

func hmacSHA256(key []byte, data string) []byte {
	h := hmac.New(sha256.New, key)
	h.Write([]byte(data))
	return h.Sum(nil)
}

func hexSHA256(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}
