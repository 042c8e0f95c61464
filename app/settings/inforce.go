package settings

import (
	"clearvest/app/command"
	"clearvest/domain/aggregate"
	"clearvest/domain/settings"
)

// inForce is the settings stream folded onto the first-start defaults, as a command consults it.
type inForce struct {
	aggregate.Root
	values settings.Values
}

func (f *inForce) Apply(e aggregate.Event) { settings.Fold(&f.values, e) }

// InForce returns the settings a command run by command.Submit decides on: the stream as this
// process last read it, so deciding costs no read, with a check that commits the command's
// events only if no change has been recorded since. A command that ran into a change decides
// again on the new values, so no deposit is ever told an address, nor a withdrawal charged a
// fee, that was replaced before it committed. Current, by contrast, reads the stream's tail on
// every call, which a request on the money path cannot afford.
func (s *Service) InForce(w *command.Writes) (settings.Values, error) {
	f, err := command.Consult(w, Stream, func() *inForce {
		v := s.defaults
		v.DepositAddresses = append([]settings.Address(nil), v.DepositAddresses...)
		return &inForce{values: v}
	})
	if err != nil {
		return settings.Values{}, err
	}
	return f.values, nil
}
