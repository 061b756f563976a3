/** The addresses of single-use links, as people receive them. */
export const invitationLink = (baseUrl: string, token: string): string =>
  `${baseUrl}/invitation?token=${token}`;

export const passwordResetLink = (baseUrl: string, token: string): string =>
  `${baseUrl}/password/reset?token=${token}`;
