package dev.clockwork.docs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.awt.image.BufferedImage;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import javax.imageio.ImageIO;

/** Test helper: renders a fixture directory and keeps what came out (files, notes, tables). */
record Rendered(Path outDir, List<String> pngs, List<String> notes, String tables) {

    static {
        System.setProperty("java.awt.headless", "true");
    }

    /** The directory of a fixture under {@code src/test/resources/fixtures}. */
    static Path fixture(String name) {
        try {
            return Path.of(Rendered.class.getResource("/fixtures/" + name).toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    static Rendered render(Path results, Path outDir) throws IOException {
        List<String> notes = new ArrayList<>();
        List<String> pngs = Charts.render(results, outDir, notes::add);
        String tables = Files.readString(outDir.resolve("tables.md"), StandardCharsets.UTF_8);
        return new Rendered(outDir, pngs, notes, tables);
    }

    /** Decodes every PNG written: right size, and more than one colour (something was drawn). */
    void assertImages() throws IOException {
        for (String png : pngs) {
            BufferedImage image = ImageIO.read(outDir.resolve(png).toFile());
            assertNotNull(image, png + " is not a readable image");
            assertEquals(Style.WIDTH, image.getWidth(), png);
            assertEquals(Style.HEIGHT, image.getHeight(), png);
            assertTrue(colours(image) > 3, png + " is (nearly) a single colour");
        }
    }

    private static int colours(BufferedImage image) {
        Set<Integer> seen = new HashSet<>();
        for (int y = 0; y < image.getHeight(); y += 5) {
            for (int x = 0; x < image.getWidth(); x += 5) {
                seen.add(image.getRGB(x, y));
            }
        }
        return seen.size();
    }

    /** The tables.md text after the fixed preamble. */
    String body() {
        return tables.substring(tables.indexOf("\n### ") + 1);
    }
}
