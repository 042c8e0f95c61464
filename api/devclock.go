package api

import (
	"context"
	"errors"
	"strings"
	"time"

	"clearvest/api/apigen"
	"clearvest/domain/clock"
	"clearvest/domain/domainerr"
)

// The development test clock moves the application's time forward, for the whole process, so a
// developer (and the end-to-end tests) can see what happens days later, such as an investment
// maturing. Like the development mailbox it exists only in development: in production (or when
// serve installed no test clock) the endpoints answer 404 as if they did not exist.

var errNoDevClock = domainerr.New(domainerr.NotFound, "Not found")

func (s *server) testClock() (*clock.Offset, error) {
	if s.production || s.devClock == nil {
		return nil, errNoDevClock
	}
	return s.devClock, nil
}

func devClockView(c *clock.Offset) apigen.DevClock {
	off := c.Offset()
	return apigen.DevClock{Now: c.Now(), Offset: off.String(), OffsetSeconds: int64(off / time.Second)}
}

func (s *server) GetDevClock(context.Context, apigen.GetDevClockRequestObject) (apigen.GetDevClockResponseObject, error) {
	c, err := s.testClock()
	if err != nil {
		return nil, err
	}
	return apigen.GetDevClock200JSONResponse(devClockView(c)), nil
}

func (s *server) AdvanceDevClock(_ context.Context, req apigen.AdvanceDevClockRequestObject) (apigen.AdvanceDevClockResponseObject, error) {
	c, err := s.testClock()
	if err != nil {
		return nil, err
	}
	if req.Body == nil {
		return nil, domainerr.Field("advance", "advance is required.")
	}
	d, err := time.ParseDuration(strings.TrimSpace(req.Body.Advance))
	if err != nil {
		return nil, domainerr.Field("advance", `advance must be a duration such as "72h" or "90m".`)
	}
	if _, err := c.Advance(d); err != nil {
		if errors.Is(err, clock.ErrBadAdvance) {
			return nil, domainerr.Field("advance", clock.ErrBadAdvance.Message)
		}
		return nil, err
	}
	if s.clockMoved != nil {
		s.clockMoved()
	}
	return apigen.AdvanceDevClock200JSONResponse(devClockView(c)), nil
}
