package verifiers;

import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.jwk.source.JWKSource;
import com.nimbusds.jose.jwk.source.JWKSourceBuilder;
import com.nimbusds.jose.proc.JWSVerificationKeySelector;
import com.nimbusds.jose.proc.SecurityContext;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.proc.ConfigurableJWTProcessor;
import com.nimbusds.jwt.proc.DefaultJWTClaimsVerifier;
import com.nimbusds.jwt.proc.DefaultJWTProcessor;
import java.net.URI;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

/** nimbus-jose-jwt's DefaultJWTProcessor with a remote JWK set, as its "Validating JWT access tokens" example. */
final class NimbusVerifier {
  static VerifyTokens.Verifier create(String jwksUrl, String issuer, String audience, List<String> algorithms) throws Exception {
    JWKSource<SecurityContext> keySource = JWKSourceBuilder.create(URI.create(jwksUrl).toURL()).retrying(true).build();
    Set<JWSAlgorithm> expected = algorithms.stream().map(JWSAlgorithm::parse).collect(Collectors.toSet());

    ConfigurableJWTProcessor<SecurityContext> processor = new DefaultJWTProcessor<>();
    processor.setJWSKeySelector(new JWSVerificationKeySelector<>(expected, keySource));
    processor.setJWTClaimsSetVerifier(new DefaultJWTClaimsVerifier<>(
        audience,
        new JWTClaimsSet.Builder().issuer(issuer).build(),
        Set.of("sub", "iat", "exp")));
    return (token) -> processor.process(token, null).getSubject();
  }

  private NimbusVerifier() {}
}
