// Command scalebench holds the two parts of the history-growth benchmark (scripts/bench-scale.sh,
// docs/benchmarks.md, "Cost as history grows") that the shell cannot do well:
//
//	scalebench command -url BASE_URL -token TOKEN -n 200
//	    sends n deposit requests (POST /api/payments/create, a fresh Idempotency-Key each) one
//	    after another as that signed-in user and prints "first p50 p99 max" in milliseconds: the
//	    first is the cold one when the server has just started, and the quantiles and maximum
//	    are those of the others
//	scalebench plot -csv results.csv -out DIR
//	    draws one SVG per graph of the results (rows "events,graph,series,value,unit"): the
//	    value against the log's events on a logarithmic axis, one line per series
package main

import (
	"bytes"
	"crypto/rand"
	"encoding/csv"
	"encoding/json"
	"encoding/xml"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"
)

func main() {
	if len(os.Args) < 2 {
		usage()
	}
	var err error
	switch os.Args[1] {
	case "command":
		err = command(os.Args[2:])
	case "plot":
		err = plot(os.Args[2:])
	default:
		usage()
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "scalebench: %v\n", err)
		os.Exit(1)
	}
}

func usage() {
	fmt.Fprintln(os.Stderr, "usage: scalebench command -url BASE_URL -token T [-n 200] | scalebench plot -csv FILE -out DIR")
	os.Exit(2)
}

// command times deposit requests one at a time (closed loop, one client), so each latency is one
// command's own, with no queue in front of it.
func command(args []string) error {
	fs := flag.NewFlagSet("command", flag.ExitOnError)
	base := fs.String("url", "", "the server's base URL")
	token := fs.String("token", "", "the signed-in user's bearer token")
	n := fs.Int("n", 200, "requests")
	_ = fs.Parse(args)
	if *base == "" || *token == "" || *n < 1 {
		return errors.New("command: -url, -token and -n ≥ 1 are required")
	}
	client := &http.Client{Timeout: 60 * time.Second}
	lat := make([]time.Duration, 0, *n)
	for i := range *n {
		body, _ := json.Marshal(map[string]string{"amount": fmt.Sprintf("%d.%02d", 10+i%990, i%100), "asset": "USDT", "network": "TRC20"})
		req, err := http.NewRequest(http.MethodPost, strings.TrimRight(*base, "/")+"/api/payments/create", bytes.NewReader(body))
		if err != nil {
			return err
		}
		req.Header.Set("Authorization", "Bearer "+*token)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Idempotency-Key", rand.Text())
		start := time.Now()
		res, err := client.Do(req)
		if err != nil {
			return err
		}
		msg, _ := io.ReadAll(res.Body)
		res.Body.Close()
		lat = append(lat, time.Since(start))
		if res.StatusCode != http.StatusOK {
			return fmt.Errorf("request %d: %s: %s", i+1, res.Status, msg)
		}
	}
	// The first request is reported on its own: on a server that has just started it loads the
	// account, and the rest are the warm figures.
	first, rest := lat[0], lat[1:]
	if len(rest) == 0 {
		rest = lat
	}
	slices.Sort(rest)
	q := func(p float64) float64 { return ms(rest[min(int(p*float64(len(rest))), len(rest)-1)]) }
	fmt.Printf("%.2f %.2f %.2f %.2f\n", ms(first), q(0.5), q(0.99), ms(rest[len(rest)-1]))
	return nil
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// graph is one SVG: its title, the y axis's label, and a line to draw across it (a target).
type graph struct {
	title, unit string
	target      float64
	logY        bool
}

// graphs are the benchmark's graphs by the name its CSV rows give; a graph not named here gets
// its name as title.
var graphs = map[string]graph{
	"write":         {title: "Writing the log (moneylog, through the event store)", unit: "events/s"},
	"rebuild":       {title: "Projection rebuild from zero, per read model", unit: "events/s", target: 150_000, logY: true},
	"rebuild-total": {title: "clearvest projections rebuild --all: wall time", unit: "s", logY: true},
	"verify":        {title: "clearvest events verify: wall time", unit: "s", target: 120, logY: true},
	"verify-memory": {title: "clearvest events verify: peak resident memory", unit: "MB"},
	"reads":         {title: "Dashboard and history p99 at a fixed rate, beside a fresh database", unit: "ms", logY: true},
	"command":       {title: "Deposit request: account with 10,000 events vs new account", unit: "ms", logY: true},
	"maturity":      {title: "Maturity job: investments settled per second", unit: "settled/s", target: 2000},
	"size":          {title: "Database size", unit: "MB", logY: true},
	"size-per":      {title: "Bytes on disk per event and per investor", unit: "bytes", logY: true},
}

type point struct{ x, y float64 }

func plot(args []string) error {
	fs := flag.NewFlagSet("plot", flag.ExitOnError)
	in := fs.String("csv", "", "results: events,graph,series,value,unit")
	out := fs.String("out", "", "directory for the SVG files")
	_ = fs.Parse(args)
	if *in == "" || *out == "" {
		return errors.New("plot: -csv and -out are required")
	}
	f, err := os.Open(*in)
	if err != nil {
		return err
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		return err
	}
	data := map[string]map[string][]point{}
	var order []string
	for i, r := range rows {
		if i == 0 && r[0] == "events" {
			continue
		}
		if len(r) < 4 {
			return fmt.Errorf("%s line %d: want events,graph,series,value[,unit]", *in, i+1)
		}
		if strings.TrimSpace(r[3]) == "" {
			continue // not measured (the run noted why)
		}
		var x, y float64
		if _, err := fmt.Sscan(r[0], &x); err != nil {
			return fmt.Errorf("%s line %d: %w", *in, i+1, err)
		}
		if _, err := fmt.Sscan(r[3], &y); err != nil {
			return fmt.Errorf("%s line %d: %w", *in, i+1, err)
		}
		if data[r[1]] == nil {
			data[r[1]] = map[string][]point{}
			order = append(order, r[1])
		}
		data[r[1]][r[2]] = append(data[r[1]][r[2]], point{x, y})
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		return err
	}
	for _, name := range order {
		g, ok := graphs[name]
		if !ok {
			g = graph{title: name}
		}
		svg := draw(g, data[name])
		if err := os.WriteFile(fmt.Sprintf("%s/%s.svg", *out, name), svg, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// palette is distinguishable on white, in print and for the common colour blindnesses (Okabe–Ito
// first, then darker tones).
var palette = []string{"#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000", "#8C564B",
	"#7F7F7F", "#1F3B73", "#A6761D", "#66A61E", "#E7298A", "#7570B3", "#B15928", "#6A3D9A"}

// draw is a line chart of the series: x (events) on a logarithmic axis, y linear from zero, or
// logarithmic when the graph asks for it.
func draw(g graph, series map[string][]point) []byte {
	const w, h, left, right, top, bottom = 860, 440, 80, 250, 40, 50
	names := make([]string, 0, len(series))
	xmin, xmax, ymin, ymax := 0.0, 0.0, 0.0, 0.0
	first := true
	for name, ps := range series {
		names = append(names, name)
		slices.SortFunc(ps, func(a, b point) int {
			if a.x < b.x {
				return -1
			}
			if a.x > b.x {
				return 1
			}
			return 0
		})
		for _, p := range ps {
			if first {
				xmin, xmax, ymin, ymax = p.x, p.x, p.y, p.y
				first = false
			}
			xmin, xmax, ymin, ymax = min(xmin, p.x), max(xmax, p.x), min(ymin, p.y), max(ymax, p.y)
		}
	}
	slices.Sort(names)
	if g.target > 0 {
		ymax, ymin = max(ymax, g.target), min(ymin, g.target)
	}
	lx := func(v float64) float64 { return log10(v) }
	x0, x1 := floor10(xmin), ceil10(xmax)
	if x1 <= x0 {
		x1 = x0 + 1
	}
	var y0, y1 float64
	ty := func(v float64) float64 { return v }
	if g.logY && ymin > 0 {
		y0, y1, ty = floor10(ymin), ceil10(ymax), lx
		if y1 <= y0 {
			y1 = y0 + 1
		}
	} else {
		y0, y1 = 0, niceCeil(ymax*1.05)
		g.logY = false
	}
	px := func(v float64) float64 { return left + (lx(v)-x0)/(x1-x0)*(w-left-right) }
	py := func(v float64) float64 { return h - bottom - (ty(v)-y0)/(y1-y0)*(h-top-bottom) }

	var b bytes.Buffer
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="12">`+"\n", w, h, w, h)
	fmt.Fprintf(&b, `<rect width="%d" height="%d" fill="#fff"/>`+"\n", w, h)
	fmt.Fprintf(&b, `<text x="%d" y="22" font-size="15" font-weight="bold">%s</text>`+"\n", left, esc(g.title))
	// x axis: a tick per power of ten.
	for e := x0; e <= x1; e++ {
		x := left + (e-x0)/(x1-x0)*(w-left-right)
		fmt.Fprintf(&b, `<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#ddd"/>`+"\n", x, top, x, h-bottom)
		fmt.Fprintf(&b, `<text x="%.1f" y="%d" text-anchor="middle">%s</text>`+"\n", x, h-bottom+18, human(pow10(e)))
	}
	fmt.Fprintf(&b, `<text x="%d" y="%d" text-anchor="middle">events in the log (logarithmic)</text>`+"\n", left+(w-left-right)/2, h-10)
	// y axis: powers of ten, or five steps.
	var yticks []float64
	if g.logY {
		for e := y0; e <= y1; e++ {
			yticks = append(yticks, pow10(e))
		}
	} else {
		for i := range 6 {
			yticks = append(yticks, y1*float64(i)/5)
		}
	}
	for _, v := range yticks {
		y := py(v)
		fmt.Fprintf(&b, `<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="#ddd"/>`+"\n", left, y, w-right, y)
		fmt.Fprintf(&b, `<text x="%d" y="%.1f" text-anchor="end">%s</text>`+"\n", left-6, y+4, human(v))
	}
	fmt.Fprintf(&b, `<text transform="translate(16 %d) rotate(-90)" text-anchor="middle">%s%s</text>`+"\n", top+(h-top-bottom)/2, esc(g.unit), map[bool]string{true: " (logarithmic)"}[g.logY])
	fmt.Fprintf(&b, `<rect x="%d" y="%d" width="%d" height="%d" fill="none" stroke="#888"/>`+"\n", left, top, w-left-right, h-top-bottom)
	if g.target > 0 {
		y := py(g.target)
		fmt.Fprintf(&b, `<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="#C00" stroke-dasharray="6 4"/>`+"\n", left, y, w-right, y)
		fmt.Fprintf(&b, `<text x="%d" y="%.1f" fill="#C00">target %s</text>`+"\n", left+4, y-4, human(g.target))
	}
	for i, name := range names {
		c := palette[i%len(palette)]
		var pts []string
		for _, p := range series[name] {
			pts = append(pts, fmt.Sprintf("%.1f,%.1f", px(p.x), py(p.y)))
		}
		fmt.Fprintf(&b, `<polyline fill="none" stroke="%s" stroke-width="2" points="%s"/>`+"\n", c, strings.Join(pts, " "))
		for _, p := range series[name] {
			fmt.Fprintf(&b, `<circle cx="%.1f" cy="%.1f" r="3" fill="%s"><title>%s: %s at %s events</title></circle>`+"\n",
				px(p.x), py(p.y), c, esc(name), human(p.y), human(p.x))
		}
		ly := top + 10 + i*18
		fmt.Fprintf(&b, `<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="%s" stroke-width="2"/>`+"\n", w-right+12, ly, w-right+32, ly, c)
		fmt.Fprintf(&b, `<text x="%d" y="%d">%s</text>`+"\n", w-right+38, ly+4, esc(name))
	}
	b.WriteString("</svg>\n")
	return b.Bytes()
}

func log10(v float64) float64   { return math.Log10(v) }
func pow10(e float64) float64   { return math.Pow(10, e) }
func floor10(v float64) float64 { return math.Floor(math.Log10(v)) }
func ceil10(v float64) float64  { return math.Ceil(math.Log10(v)) }

// niceCeil rounds v up to 1, 2 or 5 times a power of ten, so the y axis's five steps are round.
func niceCeil(v float64) float64 {
	if v <= 0 {
		return 1
	}
	p := math.Pow(10, math.Floor(math.Log10(v)))
	for _, m := range []float64{1, 2, 5, 10} {
		if v <= m*p {
			return m * p
		}
	}
	return 10 * p
}

// human writes 1500000 as 1.5M and 0.25 as 0.25.
func human(v float64) string {
	switch a := math.Abs(v); {
	case a >= 1e9:
		return trim(v/1e9) + "G"
	case a >= 1e6:
		return trim(v/1e6) + "M"
	case a >= 1e4:
		return trim(v/1e3) + "k"
	default:
		return trim(v)
	}
}

func trim(v float64) string {
	s := strconv.FormatFloat(v, 'f', 2, 64)
	s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	return s
}

func esc(s string) string {
	var b strings.Builder
	_ = xml.EscapeText(&b, []byte(s))
	return b.String()
}
