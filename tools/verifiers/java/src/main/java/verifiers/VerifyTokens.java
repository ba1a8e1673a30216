package verifiers;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;

/**
 * Verifies tokens with the JVM verifiers other teams use, each set up as its documentation says.
 *
 * <pre>java -jar token-verifiers.jar JWKS_URL ISSUER AUDIENCE ALGS &lt; tokens</pre>
 *
 * ALGS is the comma-separated list of JWS algorithms the team expects (e.g. ES256). Each stdin line is
 * "label TAB token". For each token and each verifier one JSON line is printed:
 * {"verifier":"nimbus","token":"valid","accepted":true,"subject":"..."} or
 * {"verifier":"nimbus","token":"expired","accepted":false,"error":"..."}. The token itself is never printed.
 */
public final class VerifyTokens {
  /** Verifies one token: returns its subject, or throws why it is refused. */
  interface Verifier {
    String verify(String token) throws Exception;
  }

  public static void main(String[] args) throws Exception {
    if (args.length != 4) {
      System.err.println("usage: VerifyTokens JWKS_URL ISSUER AUDIENCE ALGS (tokens on stdin, one 'label<TAB>token' a line)");
      System.exit(2);
    }
    String jwksUrl = args[0];
    String issuer = args[1];
    String audience = args[2];
    List<String> algorithms = Arrays.asList(args[3].split(","));

    Map<String, Verifier> verifiers = new LinkedHashMap<>();
    verifiers.put("nimbus", guarded(() -> NimbusVerifier.create(jwksUrl, issuer, audience, algorithms)));
    verifiers.put("spring", guarded(() -> SpringVerifiers.configured(jwksUrl, issuer, audience, algorithms)));
    verifiers.put("spring-discover", guarded(() -> SpringVerifiers.discovering(jwksUrl, issuer, audience)));
    verifiers.put("spring-default", guarded(() -> SpringVerifiers.unconfigured(jwksUrl, issuer, audience)));

    List<String[]> tokens = new ArrayList<>();
    try (BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))) {
      for (String line; (line = in.readLine()) != null; ) {
        if (line.isBlank()) continue;
        int tab = line.indexOf('\t');
        tokens.add(new String[] {line.substring(0, tab), line.substring(tab + 1).trim()});
      }
    }
    for (Map.Entry<String, Verifier> verifier : verifiers.entrySet()) {
      for (String[] token : tokens) {
        StringBuilder out = new StringBuilder("{\"verifier\":").append(json(verifier.getKey()))
            .append(",\"token\":").append(json(token[0]));
        try {
          String subject = verifier.getValue().verify(token[1]);
          out.append(",\"accepted\":true,\"subject\":").append(json(subject));
        } catch (Exception e) {
          out.append(",\"accepted\":false,\"error\":").append(json(e.getClass().getSimpleName() + ": " + e.getMessage()));
        }
        System.out.println(out.append('}'));
      }
    }
  }

  /** A verifier that could not even be built refuses every token with the reason. */
  static Verifier guarded(Callable<Verifier> factory) {
    try {
      return factory.call();
    } catch (Exception e) {
      return (token) -> {
        throw e;
      };
    }
  }

  static String json(String value) {
    if (value == null) return "null";
    StringBuilder out = new StringBuilder("\"");
    for (char c : value.toCharArray()) {
      if (c == '"' || c == '\\') out.append('\\').append(c);
      else if (c < 0x20) out.append(String.format("\\u%04x", (int) c));
      else out.append(c);
    }
    return out.append('"').toString();
  }

  private VerifyTokens() {}
}
