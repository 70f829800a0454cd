import ipaddr from 'ipaddr.js';

/**
 * How many texts keep their counted form. ipaddr.js takes microseconds to
 * parse one address and this runs on every request, while a lookup takes
 * nanoseconds; forgetting everything once full keeps the memory bounded
 * whatever a client sends in X-Forwarded-For.
 */
const REMEMBERED = 4096;
/** Text → counted form, or null when the text is not an IP address. */
const remembered = new Map<string, string | null>();

/**
 * The form in which every per-address rule counts a client (docs/spec/DECISIONS.md, "IPv6
 * clients"): an IPv4 address as it is, an IPv4-mapped IPv6 address as its
 * IPv4 address, any other IPv6 address as its /64 in RFC 5952 text
 * (`2001:db8:1:2::/64`) — a subscriber is usually given a whole /64, so one
 * counter per IPv6 address would give one client 2^64 limits. Undefined when
 * the text is not an IP address.
 */
export function countedAddressOf(text: string): string | undefined {
  let counted = remembered.get(text);
  if (counted === undefined) {
    counted = ipaddr.isValid(text) ? countedForm(ipaddr.process(text)) : null;
    if (remembered.size >= REMEMBERED) remembered.clear();
    remembered.set(text, counted);
  }
  return counted ?? undefined;
}

function countedForm(address: ipaddr.IPv4 | ipaddr.IPv6): string {
  if (!(address instanceof ipaddr.IPv6)) return address.toString();
  // The first four 16-bit groups are the /64; the zone (`%eth0`) is dropped with the rest.
  const [a = 0, b = 0, c = 0, d = 0] = address.parts;
  return `${new ipaddr.IPv6([a, b, c, d, 0, 0, 0, 0]).toRFC5952String()}/64`;
}
