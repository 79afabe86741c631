import type { ServiceType } from '../../../core/index.ts';
import { dnsGreeting } from './dns-greeting.ts';
import type { Greeting } from './greeting.ts';
import { mysqlGreeting } from './mysql-greeting.ts';
import { postgresqlGreeting } from './postgresql-greeting.ts';
import { rdpGreeting } from './rdp-greeting.ts';
import { textGreeting } from './text-greeting.ts';

/** How the `service` probe reaches a protocol: over TLS from the first byte, or in the clear. */
export interface ServiceDialog {
  tls: boolean;
  /** Null for `tcp`: the connection alone is the answer. */
  greeting: Greeting | null;
}

/** A fresh dialog per probe (the DNS query's id is random). `web` has none: it is probed over HTTP. */
export function dialogFor(service: Exclude<ServiceType, 'web'>): ServiceDialog {
  switch (service) {
    case 'ssh':
      return { tls: false, greeting: textGreeting(['SSH-']) };
    case 'smtp':
    case 'submission':
    case 'ftp':
      return { tls: false, greeting: textGreeting(['220']) };
    case 'smtps':
      return { tls: true, greeting: textGreeting(['220']) };
    // PREAUTH is the other greeting RFC 9051 lets a server that is willing to serve send.
    case 'imap':
      return { tls: false, greeting: textGreeting(['* OK', '* PREAUTH']) };
    case 'imaps':
      return { tls: true, greeting: textGreeting(['* OK', '* PREAUTH']) };
    case 'pop3':
      return { tls: false, greeting: textGreeting(['+OK']) };
    case 'pop3s':
      return { tls: true, greeting: textGreeting(['+OK']) };
    case 'mysql':
      return { tls: false, greeting: mysqlGreeting() };
    case 'postgresql':
      return { tls: false, greeting: postgresqlGreeting() };
    case 'rdp':
      return { tls: false, greeting: rdpGreeting() };
    case 'dns':
      return { tls: false, greeting: dnsGreeting() };
    case 'tcp':
      return { tls: false, greeting: null };
  }
}
