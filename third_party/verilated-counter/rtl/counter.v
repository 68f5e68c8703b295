// An 8-bit counter with synchronous reset and enable: built with --trace.
module counter(
    input clk,
    input reset,
    input enable,
    output reg [7:0] count
);
    always @(posedge clk)
        if (reset) count <= 8'd0;
        else if (enable) count <= count + 8'd1;
endmodule
