/** The mail port: one plain-text message to one address. */
export interface MailMessage {
  to: string;
  subject: string;
  text: string;
}

export interface Mailer {
  /** Resolves once the server accepted the message; rejects otherwise. */
  send(message: MailMessage): Promise<void>;
  close(): void;
}
