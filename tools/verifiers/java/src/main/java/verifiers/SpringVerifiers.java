package verifiers;

import java.util.List;
import java.util.Objects;
import java.util.stream.Collectors;
import org.springframework.security.oauth2.jose.jws.SignatureAlgorithm;
import org.springframework.security.oauth2.jwt.JwtAudienceValidator;
import org.springframework.security.oauth2.jwt.JwtIssuerValidator;
import org.springframework.security.oauth2.jwt.JwtValidators;
import org.springframework.security.oauth2.jwt.NimbusJwtDecoder;

/**
 * Spring Security's NimbusJwtDecoder.withJwkSetUri(...), what a resource server builds from
 * spring.security.oauth2.resourceserver.jwt.jwk-set-uri: three ways a team may set it up.
 */
final class SpringVerifiers {
  /** jwsAlgorithm(...) for each expected algorithm Spring knows (spring...jwt.jws-algorithms). */
  static VerifyTokens.Verifier configured(String jwksUrl, String issuer, String audience, List<String> algorithms) {
    List<SignatureAlgorithm> known = algorithms.stream().map(SignatureAlgorithm::from).filter(Objects::nonNull).collect(Collectors.toList());
    if (known.isEmpty()) {
      String why = "Spring Security's SignatureAlgorithm has no " + String.join(", ", algorithms) + ": jwsAlgorithm cannot be set";
      return (token) -> {
        throw new UnsupportedOperationException(why);
      };
    }
    return validated(NimbusJwtDecoder.withJwkSetUri(jwksUrl).jwsAlgorithms((set) -> set.addAll(known)).build(), issuer, audience);
  }

  /** discoverJwsAlgorithms() (Spring Security 7): the algorithms named by the RSA and EC keys of the set. */
  static VerifyTokens.Verifier discovering(String jwksUrl, String issuer, String audience) {
    return validated(NimbusJwtDecoder.withJwkSetUri(jwksUrl).discoverJwsAlgorithms().build(), issuer, audience);
  }

  /** Nothing configured but the URI: the builder's default, RS256 only. */
  static VerifyTokens.Verifier unconfigured(String jwksUrl, String issuer, String audience) {
    return validated(NimbusJwtDecoder.withJwkSetUri(jwksUrl).build(), issuer, audience);
  }

  /** withJwkSetUri validates only the timestamps and typ by default: issuer and audience are the team's to add. */
  private static VerifyTokens.Verifier validated(NimbusJwtDecoder decoder, String issuer, String audience) {
    decoder.setJwtValidator(JwtValidators.createDefaultWithValidators(new JwtIssuerValidator(issuer), new JwtAudienceValidator(audience)));
    return (token) -> decoder.decode(token).getSubject();
  }

  private SpringVerifiers() {}
}
