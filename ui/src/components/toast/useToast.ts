import { useMemo } from 'react';
import { useAppDispatch } from '../../app/hooks';
import { toastDismissed, toastShown } from './toastSlice';

export function useToast() {
  const dispatch = useAppDispatch();
  return useMemo(
    () => ({
      success: (message: string) => dispatch(toastShown('success', message)).payload.id,
      info: (message: string) => dispatch(toastShown('info', message)).payload.id,
      dismiss: (id: string) => dispatch(toastDismissed(id)),
    }),
    [dispatch],
  );
}
