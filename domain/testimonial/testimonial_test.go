package testimonial_test

import (
	"strings"
	"testing"
	"time"

	"clearvest/domain/aggregate/aggregatetest"
	"clearvest/domain/testimonial"
)

var (
	testimonials = aggregatetest.For(testimonial.New)
	at           = time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC)
	text         = "Clear terms, and my first plan paid out on the day it said."
	submitted    = testimonial.Submitted{TestimonialID: "t1", UserID: "ada", Text: text, At: at}
)

func TestSubmit(t *testing.T) {
	t.Parallel()
	t.Run("a verified investor writes one, normalised", func(t *testing.T) {
		t.Parallel()
		testimonials.Given().
			When(func(x *testimonial.Testimonial) error {
				return x.Submit("t1", "ada", "  Clear terms,   and my first plan paid out\ton the day it said.  ", true, at)
			}).
			Then(t, testimonial.Submitted{TestimonialID: "t1", UserID: "ada",
				Text: "Clear terms, and my first plan paid out on the day it said.", At: at})
	})
	t.Run("paragraphs survive, runs of empty lines do not", func(t *testing.T) {
		t.Parallel()
		if got := testimonial.NormalizeText("\n\nFirst part.\r\n\r\n\r\nSecond  part.\n\n"); got != "First part.\n\nSecond part." {
			t.Errorf("NormalizeText = %q", got)
		}
	})
	for name, tc := range map[string]struct {
		text     string
		eligible bool
		want     error
	}{
		"not a verified investor": {text: text, eligible: false, want: testimonial.ErrNotEligible},
		"too short":               {text: "Great!", eligible: true, want: testimonial.ErrTextLength},
		"spaces do not count":     {text: "  a                    b  ", eligible: true, want: testimonial.ErrTextLength},
		"too long":                {text: strings.Repeat("x", testimonial.MaxTextRunes+1), eligible: true, want: testimonial.ErrTextLength},
		"control characters":      {text: "Good platform\x00 with clear terms", eligible: true, want: testimonial.ErrTextInvalid},
		"a bidi override":         {text: "Good platform \u202e with clear terms", eligible: true, want: testimonial.ErrTextInvalid},
		"invalid UTF-8":           {text: "Good platform \xff with clear terms", eligible: true, want: testimonial.ErrTextInvalid},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			testimonials.Given().
				When(func(x *testimonial.Testimonial) error { return x.Submit("t1", "ada", tc.text, tc.eligible, at) }).
				ThenError(t, tc.want)
		})
	}
	t.Run("the longest text is accepted, counted in characters", func(t *testing.T) {
		t.Parallel()
		long := strings.Repeat("é", testimonial.MaxTextRunes)
		testimonials.Given().
			When(func(x *testimonial.Testimonial) error { return x.Submit("t1", "ada", long, true, at) }).
			Then(t, testimonial.Submitted{TestimonialID: "t1", UserID: "ada", Text: long, At: at})
	})
	t.Run("once", func(t *testing.T) {
		t.Parallel()
		testimonials.Given(submitted).
			When(func(x *testimonial.Testimonial) error { return x.Submit("t1", "ada", text, true, at) }).
			ThenError(t, testimonial.ErrExists)
	})
}

func TestDecide(t *testing.T) {
	t.Parallel()
	later := at.Add(time.Hour)
	t.Run("staff approve a pending one", func(t *testing.T) {
		t.Parallel()
		x := testimonials.Given(submitted).
			When(func(x *testimonial.Testimonial) error { return x.Approve("staff", later) }).
			Then(t, testimonial.Approved{StaffID: "staff", At: later})
		if x.Status() != testimonial.StatusApproved {
			t.Errorf("status = %s", x.Status())
		}
	})
	t.Run("staff reject with a reason", func(t *testing.T) {
		t.Parallel()
		x := testimonials.Given(submitted).
			When(func(x *testimonial.Testimonial) error {
				return x.Reject("staff", "  Mentions a third party by name. ", later)
			}).
			Then(t, testimonial.Rejected{StaffID: "staff", Reason: "Mentions a third party by name.", At: later})
		if x.Status() != testimonial.StatusRejected || x.Reason() != "Mentions a third party by name." {
			t.Errorf("status = %s, reason %q", x.Status(), x.Reason())
		}
	})
	t.Run("a rejection needs a reason", func(t *testing.T) {
		t.Parallel()
		testimonials.Given(submitted).
			When(func(x *testimonial.Testimonial) error { return x.Reject("staff", "   ", later) }).
			ThenError(t, testimonial.ErrReasonRequired)
	})
	t.Run("a second decision is a conflict", func(t *testing.T) {
		t.Parallel()
		testimonials.Given(submitted, testimonial.Approved{StaffID: "staff", At: later}).
			When(func(x *testimonial.Testimonial) error { return x.Reject("staff", "Changed my mind", later) }).
			ThenError(t, testimonial.ErrAlreadyDecided)
		testimonials.Given(submitted, testimonial.Rejected{StaffID: "staff", Reason: "r", At: later}).
			When(func(x *testimonial.Testimonial) error { return x.Approve("staff", later) }).
			ThenError(t, testimonial.ErrAlreadyDecided)
	})
	t.Run("nobody reviews their own", func(t *testing.T) {
		t.Parallel()
		testimonials.Given(submitted).
			When(func(x *testimonial.Testimonial) error { return x.Approve("ada", later) }).
			ThenError(t, testimonial.ErrOwnTestimonial)
	})
	t.Run("an unknown testimonial is not found", func(t *testing.T) {
		t.Parallel()
		testimonials.Given().
			When(func(x *testimonial.Testimonial) error { return x.Approve("staff", later) }).
			ThenError(t, testimonial.ErrNotFound)
	})
}
