// @vitest-environment jsdom
import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { setApi } from '../api';
import { descriptionOf, envelope, fakeApi } from '../test/fake-api';
import { SignInPage, SIGNIN_ERRORS } from './SignIn';

afterEach(() => {
  cleanup();
  setApi(undefined);
});
beforeEach(() => window.history.replaceState(null, '', '/app/signin'));

describe('SignInPage', () => {
  it.each(['magic_link_already_used', 'magic_link_expired', 'magic_link_invalid', 'no_invitation'])(
    'explains /app/signin?error=%s in words',
    (code) => {
      window.history.replaceState(null, '', `/app/signin?error=${code}`);
      render(<SignInPage claimable={false} />);
      const note = screen.getByTestId('signin-error');
      expect(note.textContent).toContain(SIGNIN_ERRORS[code]!.title);
      expect(note.textContent).not.toContain(code);
    },
  );

  it('still says something useful for a code it does not know', () => {
    window.history.replaceState(null, '', '/app/signin?error=something_new');
    render(<SignInPage claimable={false} />);
    expect(screen.getByTestId('signin-error').textContent).toContain('Sign-in failed');
  });

  it('offers the claim form on an unclaimed instance', () => {
    render(<SignInPage claimable={true} />);
    expect(screen.getByRole('link', { name: 'Set it up' }).getAttribute('href')).toBe('/app/claim');
  });

  it('shows the server’s message for a malformed address next to the field', async () => {
    const { client } = fakeApi(() => ({ status: 400, body: envelope('invalid_request', 'The request is invalid.', { email: 'Invalid email' }) }));
    setApi(client);
    render(<SignInPage claimable={false} />);
    fireEvent.change(screen.getByLabelText('Email'), { target: { value: 'nope' } });
    fireEvent.click(screen.getByRole('button', { name: 'Email me a sign-in link' }));
    await screen.findByText('Invalid email');
    expect(descriptionOf(screen.getByLabelText('Email'))).toBe('Invalid email');
  });

  it('confirms the link is on its way without saying whether the address exists', async () => {
    const { client, requests } = fakeApi(() => ({ status: 200, body: { sent: true } }));
    setApi(client);
    render(<SignInPage claimable={false} />);
    fireEvent.change(screen.getByLabelText('Email'), { target: { value: ' someone@example.com ' } });
    fireEvent.click(screen.getByRole('button', { name: 'Email me a sign-in link' }));
    expect((await screen.findByRole('status')).textContent).toContain('If someone@example.com has an account or a pending invitation');
    expect(requests[0]!.body).toEqual({ email: 'someone@example.com' });
  });
});
