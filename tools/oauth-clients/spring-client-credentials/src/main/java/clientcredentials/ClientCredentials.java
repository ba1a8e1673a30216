package clientcredentials;

import java.net.HttpURLConnection;
import java.net.URI;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

import org.springframework.boot.CommandLineRunner;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;
import org.springframework.security.oauth2.client.AuthorizedClientServiceOAuth2AuthorizedClientManager;
import org.springframework.security.oauth2.client.OAuth2AuthorizeRequest;
import org.springframework.security.oauth2.client.OAuth2AuthorizedClient;
import org.springframework.security.oauth2.client.OAuth2AuthorizedClientProviderBuilder;
import org.springframework.security.oauth2.client.OAuth2AuthorizedClientService;
import org.springframework.security.oauth2.client.registration.ClientRegistrationRepository;

/**
 * A service calling the API as Spring Security's OAuth2 client does it: the registrations of application.yml (the
 * provider found by its issuer-uri), an authorized-client manager with the client credentials provider, and the token
 * on GET /v1/users. Prints one JSON line per registration (basic, post, wrong-secret), then exits.
 */
@SpringBootApplication
public class ClientCredentials {
  public static void main(String[] args) {
    ConfigurableApplicationContext context = SpringApplication.run(ClientCredentials.class, args);
    System.exit(SpringApplication.exit(context, () -> 0));
  }

  @Bean
  CommandLineRunner obtain(ClientRegistrationRepository registrations, OAuth2AuthorizedClientService clients, Environment environment) {
    return args -> {
      var manager = new AuthorizedClientServiceOAuth2AuthorizedClientManager(registrations, clients);
      manager.setAuthorizedClientProvider(OAuth2AuthorizedClientProviderBuilder.builder().clientCredentials().build());
      for (String id : List.of("basic", "post", "wrong-secret")) {
        Map<String, Object> result = new LinkedHashMap<>();
        result.put("registration", id);
        result.put("token_endpoint", registrations.findByRegistrationId(id).getProviderDetails().getTokenUri());
        try {
          OAuth2AuthorizedClient client = manager.authorize(OAuth2AuthorizeRequest.withClientRegistrationId(id).principal("service").build());
          String token = client.getAccessToken().getTokenValue();
          result.put("token_type", client.getAccessToken().getTokenType().getValue());
          result.put("scope", String.join(" ", client.getAccessToken().getScopes().stream().sorted().toList()));
          result.put("access_token", token);
          HttpURLConnection connection = (HttpURLConnection) URI.create(environment.getProperty("ISSUER") + "/v1/users").toURL().openConnection();
          connection.setRequestProperty("Authorization", "Bearer " + token);
          result.put("users", connection.getResponseCode());
        } catch (Exception error) {
          result.put("error", error.getClass().getSimpleName() + ": " + error.getMessage());
        }
        System.out.println(json(result));
      }
    };
  }

  private static String json(Map<String, Object> values) {
    return values.entrySet().stream()
        .map((entry) -> quote(entry.getKey()) + ":" + (entry.getValue() instanceof Number ? entry.getValue().toString() : quote(String.valueOf(entry.getValue()))))
        .collect(Collectors.joining(",", "{", "}"));
  }

  private static String quote(String text) {
    StringBuilder out = new StringBuilder("\"");
    for (char c : text.toCharArray()) {
      if (c == '"' || c == '\\') out.append('\\').append(c);
      else if (c < 0x20) out.append(String.format("\\u%04x", (int) c));
      else out.append(c);
    }
    return out.append('"').toString();
  }
}
