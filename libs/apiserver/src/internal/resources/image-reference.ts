/**
 * The tag of a container image reference, as kube-apiserver's defaulting reads it
 * (pkg/util/parsers ParseImageName over the distribution reference grammar, normalized the way
 * `docker pull` names are): the tag when there is one, `latest` when there is neither a tag nor a
 * digest, `''` when only a digest pins it, and `undefined` when the string is no reference at all
 * (kube ignores the parse error, so such an image is not `latest`).
 */

// distribution/reference's grammar, as regular expressions
const DOMAIN_COMPONENT = '(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])';
const DOMAIN = `(?:${DOMAIN_COMPONENT}(?:\\.${DOMAIN_COMPONENT})*|\\[[a-fA-F0-9:]+\\])(?::[0-9]+)?`;
const PATH_COMPONENT = '[a-z0-9]+(?:(?:[._]|__|[-]+)[a-z0-9]+)*';
const NAME = `(?:${DOMAIN}/)?${PATH_COMPONENT}(?:/${PATH_COMPONENT})*`;
const TAG = '[\\w][\\w.-]{0,127}';
const DIGEST = '[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*:[0-9a-fA-F]{32,}';
const REFERENCE = new RegExp(`^(${NAME})(?::(${TAG}))?(?:@(${DIGEST}))?$`);
const HEX64 = /^[a-f0-9]{64}$/;
const NAME_TOTAL_LENGTH_MAX = 255;
/** Hex lengths of the digest algorithms the reference parser knows. */
const DIGEST_HEX: Record<string, number> = { sha256: 64, sha384: 96, sha512: 128 };

/** The tag of `image` (see the module comment). */
export function imageTag(image: string): string | undefined {
  // ParseNormalizedNamed: the remainder after a docker.io-style domain must be lowercase and not a
  // bare 64-hex identifier
  const slash = image.indexOf('/');
  const first = slash === -1 ? '' : image.slice(0, slash);
  const hasDomain =
    slash !== -1 && (/[.:]/.test(first) || first === 'localhost' || first.toLowerCase() !== first);
  const remainder = hasDomain ? image.slice(slash + 1) : image;
  if (HEX64.test(remainder) || remainder.toLowerCase() !== remainder) return undefined;
  const m = REFERENCE.exec(image);
  if (!m) return undefined;
  const [, name = '', tag, digest] = m;
  if (name.length > NAME_TOTAL_LENGTH_MAX) return undefined;
  if (digest !== undefined) {
    const [alg = '', hex = ''] = digest.split(':');
    const want = DIGEST_HEX[alg];
    if (want === undefined || hex.length !== want || /[A-F]/.test(hex)) return undefined;
  }
  if (tag !== undefined) return tag;
  return digest === undefined ? 'latest' : '';
}

/** kube's default pull policy: Always for a `latest` tag (or none and no digest), else IfNotPresent. */
export function defaultPullPolicy(image: unknown): 'Always' | 'IfNotPresent' {
  return typeof image === 'string' && imageTag(image) === 'latest' ? 'Always' : 'IfNotPresent';
}
