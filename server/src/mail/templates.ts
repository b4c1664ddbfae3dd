import type { MailMessage } from './mailer.js';

/** The mails Gradual sends. Plain text: every client shows it, and the link is the whole point. */

export function signInMail(to: string, link: string, minutes: number): MailMessage {
  return {
    to,
    subject: 'Your Gradual sign-in link',
    link,
    text: [
      'Hello,',
      '',
      'Open this link to sign in to Gradual:',
      '',
      link,
      '',
      `It works once and expires in ${minutes} minutes. If you did not ask for it, ignore this mail.`,
    ].join('\n'),
  };
}

export function signupMail(to: string, link: string, orgName: string, minutes: number): MailMessage {
  return {
    to,
    subject: `Finish creating ${orgName} on Gradual`,
    link,
    text: [
      'Hello,',
      '',
      `Open this link to create the organization "${orgName}" and sign in to Gradual:`,
      '',
      link,
      '',
      `It works once and expires in ${minutes} minutes. If you did not sign up, ignore this mail.`,
    ].join('\n'),
  };
}

export function invitationMail(to: string, link: string, orgName: string, role: string, inviter: string, days: number): MailMessage {
  return {
    to,
    subject: `${inviter} invited you to ${orgName} on Gradual`,
    link,
    text: [
      'Hello,',
      '',
      `${inviter} invited you to join "${orgName}" on Gradual as ${role === 'admin' ? 'an admin' : `a ${role}`}.`,
      'Open this link to accept:',
      '',
      link,
      '',
      `The invitation expires in ${days} days.`,
    ].join('\n'),
  };
}
