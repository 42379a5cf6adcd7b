package io.rdmaverbs.spring.boot.autoconfigure.docs;

import java.io.IOException;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.rdmaverbs.verbs.provider.simulated.DeviceProfile;
import io.rdmaverbs.verbs.provider.simulated.SimulatedProvider;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * docs/simulated-provider.md's table of device addresses, the one a peer in the same JVM as its listener
 * must be given, is what the simulated provider assigns: each row's GUID and address, for its name and
 * profile.
 */
class SimulatedAddressesPageTests {

    private static final Path PAGE = Path.of("..", "docs", "simulated-provider.md");
    private static final Pattern ROW = Pattern.compile(
            "^\\| `([\\w]+)` \\| `([\\w]+)` \\| `([0-9a-f]{16})` \\| `([0-9a-f:]+)` \\|$");

    @Test
    void everyAddressThePageListsIsTheOneTheDeviceGets() throws IOException {
        List<String> lines = Files.readAllLines(PAGE, StandardCharsets.UTF_8);
        int marker = lines.indexOf("<!-- simulated-addresses -->");
        assertThat(marker).as("the <!-- simulated-addresses --> marker of %s", PAGE.getFileName()).isPositive();
        List<Matcher> rows = lines.subList(marker + 3, lines.size()).stream().takeWhile(l -> l.startsWith("|"))
                .map(ROW::matcher).toList();
        assertThat(rows).hasSize(5).allSatisfy(row -> assertThat(row.matches()).as(row.toString()).isTrue());
        for (Matcher row : rows) {
            String name = row.group(1);
            DeviceProfile profile = switch (row.group(2)) {
                case "rxe" -> DeviceProfile.rxe(name);
                case "mlx5" -> DeviceProfile.mlx5(name);
                case "mlx5_infiniband" -> DeviceProfile.mlx5Infiniband(name);
                default -> throw new AssertionError("no profile " + row.group(2));
            };
            assertThat(profile.info().guidHex()).as("GUID of %s (%s)", name, row.group(2)).isEqualTo(row.group(3));
            assertThat(SimulatedProvider.of(profile).addresses(name)).as("address of %s (%s)", name, row.group(2))
                    .first().isEqualTo(InetAddress.getByName(row.group(4)));
        }
    }
}
