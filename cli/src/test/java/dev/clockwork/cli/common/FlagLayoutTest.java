package dev.clockwork.cli.common;

import static dev.clockwork.cli.common.FlagLayout.at;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.IModelTransformer;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Option;

class FlagLayoutTest {
    static final FlagLayout LAYOUT = new FlagLayout(
            at("-erase_percent", 1, "7", "Erase %%. Default: ${DEFAULT-VALUE}."),
            at("-lookup_insert_percent", 3, "70", "Look up or insert."),
            at("-insert_percent", 4, "10", "Insert."),
            at("-blind_insert_percent", 5, "10", "Blind insert."),
            at("-lookup_percent", 6, "3", "Look up."));

    /** A command with the op mix and a flag of its own between the placed ones. */
    @Command(name = "tool", sortOptions = false, modelTransformer = Placed.class)
    static final class Tool {
        @Mixin
        OpMixFlags mix;

        @Option(names = "-own", order = 2, defaultValue = "1")
        long own;
    }

    public static final class Placed implements IModelTransformer {
        @Override
        public CommandSpec transform(CommandSpec spec) {
            return LAYOUT.applyTo(spec);
        }
    }

    @Test
    void theCommandsPlaceDefaultAndWordsWinOverTheMixins() {
        Tool tool = new Tool();
        CommandLine cl = new CommandLine(tool);
        cl.parseArgs("-insert_percent=12");
        assertEquals(7, tool.mix.erasePercent);
        assertEquals(12, tool.mix.insertPercent);
        assertEquals(70, tool.mix.lookupInsertPercent);
        StringWriter help = new StringWriter();
        cl.usage(new PrintWriter(help));
        assertTrue(help.toString().contains("Erase %. Default: 7."), help.toString());
        List<String> order = cl.getCommandSpec().options().stream()
                .sorted((a, b) -> Integer.compare(a.order(), b.order()))
                .map(OptionSpec::longestName).toList();
        assertEquals(List.of("-erase_percent", "-own", "-lookup_insert_percent",
                "-insert_percent", "-blind_insert_percent", "-lookup_percent"), order);
        Map<String, String> values = LAYOUT.values(tool, tool.mix);
        assertEquals(List.of("erase_percent", "own", "lookup_insert_percent", "insert_percent",
                "blind_insert_percent", "lookup_percent"), List.copyOf(values.keySet()));
        assertEquals("12", values.get("insert_percent"));
    }

    @Test
    void aFlagWithoutAPlaceOrAPlaceWithoutAFlagFailsAtStartUp() {
        CommandSpec spec = CommandSpec.create().name("t");
        spec.addOption(OptionSpec.builder("-a").type(long.class).build());
        IllegalStateException unplaced = assertThrows(IllegalStateException.class,
                () -> new FlagLayout().applyTo(spec));
        assertTrue(unplaced.getMessage().contains("-a has no place"), unplaced.getMessage());
        IllegalStateException missing = assertThrows(IllegalStateException.class,
                () -> new FlagLayout(at("-b", 1)).applyTo(spec));
        assertTrue(missing.getMessage().contains("has no flag -b"), missing.getMessage());
    }
}
