package resourceserver;

import java.util.Map;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.security.core.annotation.AuthenticationPrincipal;
import org.springframework.security.oauth2.jwt.Jwt;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * A resource server as Spring Boot's documentation sets one up: no security configuration of its own,
 * so every request needs a bearer JWT, and the decoder comes from
 * spring.security.oauth2.resourceserver.jwt.issuer-uri (discovery) and .audiences, given on the command line.
 */
@SpringBootApplication
@RestController
public class ResourceServer {
  public static void main(String[] args) {
    SpringApplication.run(ResourceServer.class, args);
  }

  @GetMapping("/whoami")
  Map<String, Object> whoami(@AuthenticationPrincipal Jwt jwt) {
    return Map.of("sub", jwt.getSubject());
  }
}
