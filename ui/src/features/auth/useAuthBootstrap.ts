import { useEffect } from 'react';
import { useSetLanguageMutation } from '../../api/enhanced';
import { useAppDispatch, useAppSelector } from '../../app/hooks';
import { onLanguageChosen } from '../../i18n';
import { selectAuth, selectIsLoggedIn } from './authSlice';
import { checkSession } from './checkSession';
import { useCurrentUser } from './session';

// Asks the server once per load whether this browser has a session (the auth slice listens to the
// answer), and loads the signed-in user into the query cache as soon as there is one.
export function useAuthBootstrap() {
  const dispatch = useAppDispatch();
  const { known } = useAppSelector(selectAuth);
  useEffect(() => {
    if (!known) void dispatch(checkSession());
  }, [known, dispatch]);
  useCurrentUser();
  useRecordLanguage();
}

// A signed-in reader who picks another language has it recorded, so their e-mails are written
// in it from then on. Nothing to tell them if it fails: the page is in their language anyway.
function useRecordLanguage() {
  const isLoggedIn = useAppSelector(selectIsLoggedIn);
  const [setLanguage] = useSetLanguageMutation();
  useEffect(() => {
    if (!isLoggedIn) return undefined;
    return onLanguageChosen((language) => {
      void setLanguage({ setLanguageRequest: { language } });
    });
  }, [isLoggedIn, setLanguage]);
}
