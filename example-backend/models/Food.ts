/** A food log entry: everyone signed in can read it, only its owner can change it. */
import mongoose, { Schema } from "mongoose";

const foodSchema = new Schema(
  {
    name: { type: String, required: true, trim: true, maxlength: 200 },
    calories: { type: Number, min: 0 },
    eatenAt: Date,
    // Set from the caller by the router's preCreate hook; no client can write it.
    ownerId: { type: Schema.Types.ObjectId, ref: "User", required: true, index: true },
  },
  { timestamps: true },
);

export const Food = mongoose.model("Food", foodSchema);
