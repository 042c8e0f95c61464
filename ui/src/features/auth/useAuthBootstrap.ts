import { useEffect } from 'react';
import { useGetUserQuery } from '../../api/enhanced';
import { useAppDispatch, useAppSelector } from '../../app/hooks';
import { selectAuth } from './authSlice';
import { checkSession } from './checkSession';

// Asks the server once per load whether this browser has a session, and keeps the signed-in user
// fresh; the auth slice listens to both answers.
export function useAuthBootstrap() {
  const dispatch = useAppDispatch();
  const { known, isLoggedIn } = useAppSelector(selectAuth);
  useEffect(() => {
    if (!known) void dispatch(checkSession());
  }, [known, dispatch]);
  useGetUserQuery({}, { skip: !isLoggedIn });
}
