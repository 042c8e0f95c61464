import { useEffect } from 'react';
import { useAppDispatch, useAppSelector } from '../../app/hooks';
import { selectAuth } from './authSlice';
import { checkSession } from './checkSession';
import { rememberSession } from './sessionHint';
import { useCurrentUser } from './session';

// Asks the server once per load whether this browser has a session (the auth slice listens to the
// answer), and loads the signed-in user into the query cache as soon as there is one.
export function useAuthBootstrap() {
  const dispatch = useAppDispatch();
  const { known, isLoggedIn } = useAppSelector(selectAuth);
  useEffect(() => {
    if (!known) void dispatch(checkSession());
  }, [known, dispatch]);
  useEffect(() => {
    if (known) rememberSession(isLoggedIn);
  }, [known, isLoggedIn]);
  useCurrentUser();
}
